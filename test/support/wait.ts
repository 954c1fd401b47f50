type Unmet = undefined | null | false;

/**
 * Resolves when `check` returns (or resolves to) a value other than undefined/null/false; fails
 * after `timeoutMs`.
 */
export async function waitFor<T>(
  check: () => T | Unmet | Promise<T | Unmet>,
  timeoutMs = 3_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
