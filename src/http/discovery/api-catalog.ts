/**
 * The API catalog (RFC 9727): a linkset (RFC 9264 §4.2) at `/.well-known/api-catalog` whose link
 * contexts are the API's base URL and its MCP endpoint (`/mcp`), with the RFC 8631 relations a client needs to use it:
 * `service-desc` (OpenAPI), `service-doc` (human docs), `service-meta` (agent guides), `status`
 * (health), plus `terms-of-service` (RFC 6903). Every relation's value is an array of target
 * objects, as RFC 9264 §4.2.2 requires.
 */

/** RFC 9727 §4.2: the profile that marks a linkset as an API catalog. */
const apiCatalogProfile = 'https://www.rfc-editor.org/info/rfc9727';
export const apiCatalogContentType = `application/linkset+json; profile="${apiCatalogProfile}"`;
export const apiCatalogPath = '/.well-known/api-catalog';

interface LinkTarget {
  href: string;
  type?: string;
  title?: string;
}

type LinkContext = { anchor: string } & Record<string, string | LinkTarget[]>;

interface Linkset {
  linkset: LinkContext[];
}

/** The catalog: the API (v1), its MCP endpoint, and the documents that describe them. */
export function buildApiCatalog(publicUrl: string): Linkset {
  return {
    linkset: [
      {
        anchor: `${publicUrl}/v1`,
        'service-desc': [
          {
            href: `${publicUrl}/v1/openapi.json`,
            type: 'application/openapi+json',
            title: 'OpenAPI 3.1 description of the nerkh rates API v1',
          },
        ],
        'service-doc': [
          { href: `${publicUrl}/docs`, type: 'text/html', title: 'API reference' },
          { href: `${publicUrl}/docs/errors`, type: 'text/html', title: 'Error types' },
        ],
        'service-meta': [
          {
            href: `${publicUrl}/llms.txt`,
            type: 'text/markdown',
            title: 'llms.txt: guide for language models',
          },
          {
            href: `${publicUrl}/.well-known/agent-skills/index.json`,
            type: 'application/json',
            title: 'Agent Skills discovery index',
          },
          { href: `${publicUrl}/SKILL.md`, type: 'text/markdown', title: 'Agent skill: using the rates API' },
        ],
        status: [
          { href: `${publicUrl}/v1/health`, type: 'application/health+json', title: 'Service health' },
        ],
        'terms-of-service': [{ href: `${publicUrl}/terms`, type: 'text/html', title: 'Terms of use' }],
      },
      // The MCP endpoint: the same operations over MCP's Streamable HTTP transport (content/docs.md "MCP").
      {
        anchor: `${publicUrl}/mcp`,
        'service-doc': [
          {
            href: `${publicUrl}/docs#mcp`,
            type: 'text/html',
            title: 'MCP over Streamable HTTP: tools get_sell_rates and get_service_health, key in X-API-Key',
          },
        ],
        'service-meta': [
          {
            href: `${publicUrl}/SKILL.md`,
            type: 'text/markdown',
            title: 'Agent skill: using the rates API and its MCP tools',
          },
        ],
        status: [
          { href: `${publicUrl}/v1/health`, type: 'application/health+json', title: 'Service health' },
        ],
      },
    ],
  };
}

/** `Link` field value pointing at the catalog (RFC 8288 §3, relation registered by RFC 9727 §7.2). */
export function apiCatalogLink(publicUrl: string): string {
  return `<${publicUrl}${apiCatalogPath}>; rel="api-catalog"`;
}
