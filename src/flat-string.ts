/**
 * `parts` as one flat string. V8 keeps a string made with `+` or a template literal as a tree of
 * its pieces (a cons string) and copies the pieces into one run of bytes each time the string is
 * written to a socket or a buffer, walking the tree again for every parent string it is part of;
 * `Array.prototype.join` writes them into one run of bytes once. For strings made once and sent
 * with many responses (header lines, the access line's start and end): copying a rates response's
 * head into the socket's buffer took about twice the instructions while its rendered blocks were
 * trees (docs/decisions/0004-flat-header-strings.md).
 */
export function flatString(...parts: string[]): string {
  return parts.join('');
}
