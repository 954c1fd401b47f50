import { describe, expect, it } from 'vitest';
import { SnapshotKeyedCache } from '../../../src/site/charts/snapshot-keyed-cache.ts';

describe('SnapshotKeyedCache', () => {
  it('renders once per snapshot and key, concurrent requests sharing the rendering', async () => {
    const cache = new SnapshotKeyedCache<string>();
    let renders = 0;
    const render = async () => `drawing ${++renders}`;
    const [first, second] = await Promise.all([cache.get(1, 'BTC', render), cache.get(1, 'BTC', render)]);
    expect([first, second]).toEqual(['drawing 1', 'drawing 1']);
    expect(await cache.get(1, 'BTC', render)).toBe('drawing 1');
    expect(await cache.get(1, 'ETH', render)).toBe('drawing 2');
    expect(await cache.get(2, 'BTC', render)).toBe('drawing 3');
    // The previous snapshot's drawings are gone.
    expect(await cache.get(2, 'ETH', render)).toBe('drawing 4');
  });

  it('forgets a failed rendering so the next request tries again', async () => {
    const cache = new SnapshotKeyedCache<string>();
    await expect(cache.get(1, 'BTC', async () => Promise.reject(new Error('store down')))).rejects.toThrow(
      'store down',
    );
    expect(await cache.get(1, 'BTC', async () => 'drawn')).toBe('drawn');
  });
});
