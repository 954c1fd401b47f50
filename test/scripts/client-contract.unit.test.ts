import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildContractFiles, contractDir } from '../../scripts/client-contract.ts';

describe('the client packages’ contract (packages/client/src/generated)', () => {
  it('is exactly what the live app’s /v1/openapi.json generates today; run `npm run contract` when this fails', async () => {
    const fresh = await buildContractFiles();
    for (const [name, text] of Object.entries(fresh)) {
      const committed = await readFile(join(contractDir, name), 'utf8');
      expect(committed, `${name} drifted from the server's schemas`).toBe(text);
    }
  });

  it('carries every problem code of the error catalog in the generated types', async () => {
    const { errorCodes } = await import('../../src/web/error-catalog.ts');
    const types = await readFile(join(contractDir, 'openapi.ts'), 'utf8');
    for (const code of errorCodes) expect(types).toContain(`"${code}"`);
  });
});
