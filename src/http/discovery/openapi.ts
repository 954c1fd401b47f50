import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import packageJson from '../../../package.json' with { type: 'json' };

/**
 * How @fastify/swagger builds the OpenAPI 3.1 document (`app.swagger()`, served by ./plugin.ts at
 * `/v1/openapi.json`) from the route schemas, so the description cannot drift from what the routes
 * validate and send. Only `/v1/...` routes are documented, relative to the `/v1` server URL.
 * @fastify/swagger collects routes as they are added: it is registered before any route.
 */
export function openApiOptions(publicUrl: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'nerkh rates API',
        version: '1.0.0',
        description:
          "Current sell rates of digital currencies — what a user pays to buy a coin from the exchange — in tether (USDT) and in toman. Rates are informational; an order's final rate is fixed in the user panel.",
        termsOfService: `${publicUrl}/terms`,
        contact: { name: 'API keys and support', url: `${publicUrl}/contact` },
        // The repository's licence (an SPDX identifier, OpenAPI 3.1 §4.8.4), the packages' too.
        license: { name: packageJson.license, identifier: packageJson.license },
      },
      externalDocs: { description: 'API reference with examples', url: `${publicUrl}/docs` },
      tags: [
        { name: 'rates', description: 'Sell rates in tether and toman (API key required)' },
        { name: 'health', description: 'Freshness of the data and state of the sources (no key)' },
      ],
      servers: [{ url: `${publicUrl}/v1` }],
      components: {
        securitySchemes: {
          ApiKeyAuth: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'Issued on request through the contact page; never send it in the query string.',
          },
        },
      },
    },
    // The document describes the versioned API only; aliases, the website and root discovery paths stay out.
    transform: ({ schema, url }) => ({
      schema: url.startsWith('/v1/') ? schema : { ...schema, hide: true },
      url,
    }),
  };
}
