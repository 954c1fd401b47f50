import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, LogCapture, type TestApp } from '../../support/test-app.ts';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.app.close();
  t = undefined;
});

describe('request.log', () => {
  it('binds the request id to every line logged through it, at any level, and in its children', async () => {
    const logs = new LogCapture();
    t = await buildTestApp({ logs });
    const { app } = t;
    app.get('/log-probe', (request, reply) => {
      request.log.warn({ probe: 'warn' }, 'probe');
      request.log.error('probe error');
      request.log.child({ part: 'inner' }).info('probe child');
      reply.send('ok');
    });
    await app.inject({ url: '/log-probe', headers: { 'x-request-id': 'probe-1' } });
    const lines = logs.lines
      .map((line) => JSON.parse(line))
      .filter((line) => String(line.msg).startsWith('probe'));
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, req_id: 'probe-1', probe: 'warn', msg: 'probe' }),
      expect.objectContaining({ level: 50, req_id: 'probe-1', msg: 'probe error' }),
      expect.objectContaining({ level: 30, req_id: 'probe-1', part: 'inner', msg: 'probe child' }),
    ]);
  });
});
