import document from '@nerkh/client/openapi.json' with { type: 'json' };

/**
 * The tools' output schemas are the service's own response schemas, read from the OpenAPI document
 * the client's types were generated from (`@nerkh/client/openapi.json`), so the MCP server, the
 * client and the service describe one shape.
 */
type JsonSchemaObject = { type: 'object'; [key: string]: unknown };

function responseSchema(path: '/rates' | '/health', mediaType: string): JsonSchemaObject {
  const operation = (document.paths as Record<string, { get: { responses: Record<string, unknown> } }>)[path];
  const ok = operation?.get.responses['200'] as { content: Record<string, { schema: JsonSchemaObject }> };
  const schema = ok.content[mediaType]?.schema;
  if (schema?.type !== 'object') throw new Error(`the OpenAPI document has no object schema for ${path}`);
  return schema;
}

export const ratesOutputSchema = responseSchema('/rates', 'application/json');
export const healthOutputSchema = responseSchema('/health', 'application/health+json');
/** The API's own pattern for `symbol`, from the same document. */
function symbolParameterPattern(): string {
  const parameter = document.paths['/rates'].get.parameters.find((candidate) => candidate.name === 'symbol');
  const pattern = (parameter?.schema as { pattern?: unknown } | undefined)?.pattern;
  if (typeof pattern !== 'string') throw new Error('the OpenAPI document has no pattern for symbol');
  return pattern;
}

export const symbolPattern = symbolParameterPattern();

/** The most distinct symbols one `symbols` request may name, from the API's own description of it. */
function maxSymbolsOfParameter(): number {
  const parameter = document.paths['/rates'].get.parameters.find((candidate) => candidate.name === 'symbols');
  const text = `${(parameter as { description?: string } | undefined)?.description ?? ''}`;
  const described = /at most (\d+) distinct/.exec(text);
  if (described === null) throw new Error('the OpenAPI document does not state the most symbols');
  return Number(described[1]);
}

export const maxSymbols = maxSymbolsOfParameter();
