import { describe, expect, it } from 'vitest';
import { TurnBatch } from '../../../src/http/rates/turn-batch.ts';

describe('TurnBatch', () => {
  it("runs one turn's tasks together, in order, after the turn's other callbacks", async () => {
    const ran: string[] = [];
    const batch = new TurnBatch((error) => ran.push(`error ${String(error)}`));
    batch.defer(() => ran.push('first'));
    batch.defer(() => ran.push('second'));
    queueMicrotask(() => ran.push('microtask'));
    process.nextTick(() => ran.push('tick'));
    expect(ran).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran.slice(0, 2).sort()).toEqual(['microtask', 'tick']);
    expect(ran.slice(2)).toEqual(['first', 'second']);

    // The next turn's tasks make a batch of their own.
    batch.defer(() => ran.push('third'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran.at(-1)).toBe('third');
  });

  it('reports a task that throws and still runs the tasks after it', async () => {
    const errors: unknown[] = [];
    const ran: number[] = [];
    const batch = new TurnBatch((error) => errors.push(error));
    const fault = new Error('send failed');
    batch.defer(() => ran.push(1));
    batch.defer(() => {
      throw fault;
    });
    batch.defer(() => ran.push(3));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ran).toEqual([1, 3]);
    expect(errors).toEqual([fault]);
  });
});
