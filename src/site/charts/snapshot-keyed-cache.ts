/**
 * Keeps what was rendered from one snapshot until the next one is served, so charts are drawn
 * once per snapshot and key (a coin, a language), not once per request. Concurrent requests share
 * one rendering; a failed one is forgotten so the next request tries again. Keys are bounded by
 * the listed coins, and everything is dropped when the snapshot changes.
 */
export class SnapshotKeyedCache<T> {
  #snapshotId = Number.NaN;
  #entries = new Map<string, Promise<T>>();

  get(snapshotId: number, key: string, render: () => Promise<T>): Promise<T> {
    if (snapshotId !== this.#snapshotId) {
      this.#snapshotId = snapshotId;
      this.#entries = new Map();
    }
    const cached = this.#entries.get(key);
    if (cached) return cached;
    const entries = this.#entries;
    const rendering = render();
    entries.set(key, rendering);
    rendering.catch(() => {
      if (entries.get(key) === rendering) entries.delete(key);
    });
    return rendering;
  }
}
