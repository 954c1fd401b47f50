import { describe, expect, it } from 'vitest';
import { mcpTools } from '../../../src/http/mcp/tools.ts';
import { tools } from '../src/index.ts';

/**
 * The service serves the same tools at `/mcp` (src/http/mcp/tools.ts) as this package does: an
 * agent meets one set of names, descriptions, inputs and annotations however it reaches nerkh.
 * Dev-only: the package never imports the service.
 */
describe('the packaged tools and the service’s /mcp tools', () => {
  it('agree in name, title, description, input schema and annotations', () => {
    const shape = (list: typeof tools) =>
      list.map(({ name, title, description, inputSchema, annotations }) => ({
        name,
        title,
        description,
        inputSchema,
        annotations,
      }));
    expect(shape(mcpTools)).toEqual(shape(tools));
  });
});
