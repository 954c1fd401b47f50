export function buildIsCurrent(root: string): boolean;
