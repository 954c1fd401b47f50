import { describe, expect, it } from 'vitest';
import { unsupportedNodeReason } from '../../src/cli/node-runtime.ts';

describe('unsupportedNodeReason', () => {
  it('refuses the Node 24 releases that abort when a better-sqlite3 object is collected, naming the fix', () => {
    for (const version of ['24.19.0', '24.20.0', '24.21.0', '24.21.9']) {
      expect(unsupportedNodeReason(version)).toMatch(
        new RegExp(`^Node\\.js ${version.replaceAll('.', '\\.')} aborts .*24\\.22 or later`),
      );
    }
  });

  it('runs on the maintained lines around them', () => {
    for (const version of [
      '20.19.0',
      '20.20.2',
      '22.12.0',
      '22.23.5',
      '24.18.1',
      '24.22.0',
      '24.22.3',
      '26.1.0',
    ]) {
      expect(unsupportedNodeReason(version)).toBeUndefined();
    }
  });

  it('is the version this test runs on a supported one', () => {
    expect(unsupportedNodeReason(process.versions.node)).toBeUndefined();
  });
});
