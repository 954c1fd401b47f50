import { afterEach, describe, expect, it, vi } from 'vitest';

type FormatName = 'NumberFormat' | 'DateTimeFormat' | 'RelativeTimeFormat';

/** Counts the formats of one kind made from now on; each is still the real one. */
function countMade(name: FormatName) {
  const Real = Intl[name] as new (...args: unknown[]) => object;
  return vi.spyOn(Intl, name).mockImplementation(function (this: unknown, ...args: unknown[]) {
    return new Real(...args);
  } as never);
}

describe('Persian formats', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('are made when a Persian page first needs them, so a process answering only the API never maps ICU data for them', async () => {
    const numberFormats = countMade('NumberFormat');
    const dateFormats = countMade('DateTimeFormat');
    const relativeFormats = countMade('RelativeTimeFormat');
    vi.resetModules();
    const persian = await import('../../../src/site/words/persian-format.ts');

    expect(numberFormats).not.toHaveBeenCalled();
    expect(dateFormats).not.toHaveBeenCalled();
    expect(relativeFormats).not.toHaveBeenCalled();

    expect(persian.integerFa(4123438)).toBe('۴٬۱۲۳٬۴۳۸');
    expect(persian.tomanFa(12.4)).toBe('۱۲ تومان');
    expect(numberFormats).toHaveBeenCalledTimes(1);
    expect(persian.timeFa('2025-06-01T10:19:42Z')).toBe('۱۱ خرداد ۱۴۰۴، ۱۳:۴۹:۴۲ به وقت تهران');
    // 21:00 UTC is already the next day in Tehran: the date is Tehran's too.
    expect(persian.timeFa('2025-06-01T21:00:00Z')).toBe('۱۲ خرداد ۱۴۰۴، ۰۰:۳۰:۰۰ به وقت تهران');
    // Jalali date and clock: each made once, then kept.
    expect(dateFormats).toHaveBeenCalledTimes(2);
  });
});
