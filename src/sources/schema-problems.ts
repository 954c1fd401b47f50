import type { TSchema } from 'typebox';
import { Settings } from 'typebox/system';
import { Value } from 'typebox/value';
import { type Problem, pointerTo, segmentsOf } from './problem.ts';

/** TypeBox stops after 8 errors by default; a file is reported whole, so it gets room for all. */
const maxErrors = 1000;

interface SchemaError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

const typeNames: Record<string, string> = {
  string: 'text',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping (key: value)',
  null: 'empty',
};

/** The schema a TypeBox schemaPath (`#/properties/a/items`) points at, or undefined. */
function schemaAt(root: TSchema, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const segment of segmentsOf(schemaPath.replace(/^#/, ''))) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return typeof node === 'object' && node !== null ? (node as Record<string, unknown>) : undefined;
}

function listed(values: readonly unknown[]): string {
  return values.map((value) => JSON.stringify(value)).join(', ');
}

/**
 * Every way `value` fails `schema`, in words an operator can act on and at the place of the
 * mistake: TypeBox's raw errors repeat themselves (an unknown field is reported on the field and
 * on its object, a bad key on the key and on the map, a union on each branch and on the union);
 * each mistake is kept once, on the node to fix. `prefix` is the pointer of `value` in the file.
 */
export function schemaProblems(schema: TSchema, value: unknown, prefix = ''): Problem[] {
  const previous = Settings.Get().maxErrors;
  Settings.Set({ maxErrors });
  let errors: SchemaError[];
  try {
    errors = Value.Errors(schema, value) as unknown as SchemaError[];
  } finally {
    Settings.Set({ maxErrors: previous });
  }
  // A union reports each branch's failures and then its own; only its own is kept.
  const unionPaths = errors
    .filter((error) => error.keyword === 'anyOf')
    .map((error) => `${error.schemaPath}/`);
  const problems: Problem[] = [];
  for (const error of errors) {
    if (unionPaths.some((path) => error.schemaPath.startsWith(path))) continue;
    const pointer = prefix + error.instancePath;
    const at = schemaAt(schema, error.schemaPath);
    switch (error.keyword) {
      // Reported on the field by `additionalProperties` and on the key by its `pattern`.
      case 'boolean':
      case 'propertyNames':
        continue;
      case 'additionalProperties': {
        const known = Object.keys((at?.properties as object | undefined) ?? {});
        for (const name of error.params.additionalProperties as string[]) {
          problems.push({
            pointer: pointer + pointerTo(name),
            atKey: true,
            message:
              known.length > 0
                ? `unknown field "${name}"; the fields here are: ${known.join(', ')}`
                : `unknown field "${name}"`,
          });
        }
        continue;
      }
      case 'required':
        for (const name of error.params.requiredProperties as string[]) {
          problems.push({ pointer, message: `missing required field "${name}"` });
        }
        continue;
      case 'pattern': {
        const keyRule = error.schemaPath.endsWith('/propertyNames');
        const description = typeof at?.description === 'string' ? at.description : null;
        const rule = description ?? `text matching ${String(error.params.pattern)}`;
        problems.push(
          keyRule
            ? {
                pointer,
                atKey: true,
                message: `"${segmentsOf(pointer).at(-1)}" is not a valid key here: it must be ${rule}`,
              }
            : { pointer, message: `must be ${rule}` },
        );
        continue;
      }
      case 'type':
        problems.push({
          pointer,
          message: `must be ${typeNames[String(error.params.type)] ?? error.params.type}`,
        });
        continue;
      case 'enum':
        problems.push({
          pointer,
          message: `must be one of ${listed(error.params.allowedValues as unknown[])}`,
        });
        continue;
      case 'const':
        problems.push({ pointer, message: `must be ${JSON.stringify(error.params.allowedValue)}` });
        continue;
      case 'anyOf': {
        const branches = (at?.anyOf as Array<Record<string, unknown>> | undefined) ?? [];
        const constants = branches.every((branch) => 'const' in branch)
          ? branches.map((branch) => branch.const)
          : null;
        problems.push({
          pointer,
          message: constants
            ? `must be one of ${listed(constants)}`
            : `must be one of these forms: ${branches.map((branch) => Object.keys((branch.properties as object | undefined) ?? {}).join(' + ') || typeNames[String(branch.type)]).join('; ')}`,
        });
        continue;
      }
      case 'uniqueItems':
        problems.push({ pointer, message: 'names the same item twice' });
        continue;
      case 'minItems':
        problems.push({ pointer, message: `must list at least ${String(error.params.limit)}` });
        continue;
      case 'minProperties':
        problems.push({ pointer, message: `must have at least ${String(error.params.limit)} entries` });
        continue;
      default:
        problems.push({ pointer, message: error.message });
    }
  }
  return problems;
}
