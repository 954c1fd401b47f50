import { type Document, isMap, isNode, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import { segmentsOf } from './problem.ts';

export interface Location {
  /** 1-based, as editors count. */
  line: number;
  col: number;
}

/** Where a node starts in the text; yaml gives every parsed node its source range. */
function startOf(node: Node, lines: LineCounter): Location | null {
  const offset = node.range?.[0];
  return offset === undefined ? null : lines.linePos(offset);
}

/**
 * The place in the YAML text of the value a JSON pointer names (or of its key, with `atKey`):
 * the deepest node on the way when the pointer goes further than the document (a missing field is
 * reported at the mapping that lacks it).
 */
export function locate(doc: Document, lines: LineCounter, pointer: string, atKey = false): Location {
  let node: unknown = doc.contents;
  let found: Location = (isNode(node) && startOf(node, lines)) || { line: 1, col: 1 };
  const segments = segmentsOf(pointer);
  for (const [index, segment] of segments.entries()) {
    let next: unknown;
    let keyNode: unknown;
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => String(isScalar(item.key) ? item.key.value : item.key) === segment,
      );
      if (pair === undefined) break;
      keyNode = pair.key;
      next = pair.value;
    } else if (isSeq(node)) {
      next = node.items[Number(segment)];
    } else {
      break;
    }
    const last = index === segments.length - 1;
    // A mapping or list is found by its key's line: its own start is the first entry inside it.
    const byKey = (last && atKey) || isMap(next) || isSeq(next) || !isNode(next);
    const target = byKey && isNode(keyNode) ? keyNode : next;
    if (!isNode(target)) break;
    found = startOf(target, lines) ?? found;
    node = next;
  }
  return found;
}
