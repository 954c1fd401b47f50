import { randomFillSync } from 'node:crypto';

/** UUIDs made per batch: 4 KiB of randomness, 9 KiB of text. */
const perBatch = 256;
const uuidBytes = 16;
/** `xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx`: 32 hex digits and 4 hyphens. */
const uuidLength = 36;
const hexDigits = Buffer.from('0123456789abcdef', 'latin1');
const hyphen = 0x2d;

/**
 * Fresh request ids: random UUIDs (version 4, RFC 9562 §5.4), from the same CSPRNG and with the
 * same 122 random bits as `crypto.randomUUID`, in the same lower-case text.
 *
 * Hand-written because of what `randomUUID` costs per call on the rates fast path: Node.js builds
 * each id from 20 string concatenations (one per byte and hyphen), and the tree of pieces that
 * makes is copied into one run of bytes again the first time the id is read, on every request
 * (docs/decisions/0006-request-ids-and-date-line.md). Here the text of 256 ids is written into a
 * buffer at once and decoded into one string; each id is a slice of it, which V8 keeps as a
 * reference into that string, not a copy. A batch's string lives as long as any id sliced from it:
 * ids live as long as their request.
 */
export class RequestIds {
  readonly #random = Buffer.alloc(perBatch * uuidBytes);
  readonly #text = Buffer.alloc(perBatch * uuidLength);
  #batch = '';
  #next = perBatch;

  /** A new random UUID. */
  next(): string {
    if (this.#next === perBatch) this.#refill();
    const start = this.#next * uuidLength;
    this.#next++;
    return this.#batch.slice(start, start + uuidLength);
  }

  #refill(): void {
    const random = randomFillSync(this.#random);
    const text = this.#text;
    let at = 0;
    for (let uuid = 0; uuid < perBatch; uuid++) {
      const base = uuid * uuidBytes;
      // The version (4) in the high nibble of byte 6, the variant (binary 10) in the top bits of byte 8.
      random[base + 6] = ((random[base + 6] as number) & 0x0f) | 0x40;
      random[base + 8] = ((random[base + 8] as number) & 0x3f) | 0x80;
      for (let index = 0; index < uuidBytes; index++) {
        if (index === 4 || index === 6 || index === 8 || index === 10) text[at++] = hyphen;
        const byte = random[base + index] as number;
        text[at++] = hexDigits[byte >> 4] as number;
        text[at++] = hexDigits[byte & 0x0f] as number;
      }
    }
    this.#batch = text.toString('latin1');
    this.#next = 0;
  }
}
