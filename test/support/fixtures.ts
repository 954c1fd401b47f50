import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/project-root.ts';

/**
 * The text of an exchange's documented or recorded answer under `test/fixtures/` (each folder's
 * README names where every file comes from), e.g. `fixture('nobitex/too-many-requests.json')`.
 */
export function fixture(path: string): string {
  return readFileSync(join(projectRoot, 'test', 'fixtures', path), 'utf8');
}
