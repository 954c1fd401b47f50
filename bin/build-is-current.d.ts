export function bundlePath(root: string): string;
export function buildIsCurrent(root: string): boolean;
