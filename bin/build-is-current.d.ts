export function buildIsCurrent(srcDir: string, distDir: string): boolean;
