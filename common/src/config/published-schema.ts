/**
 * The JSON Schema a process publishes (`svc config-schema`) for editors and CI to lint real files.
 * A real file keeps its secrets as `${ENV}` placeholders (SPEC section 2), which the strict schema
 * would refuse (a 43-character secret, a URL pattern, an enum): in the published schema every string
 * field also accepts a string holding a placeholder. The loader substitutes the environment first and
 * then validates against the strict schema, so nothing is weaker where it counts.
 */

/** Where the loaders find `${NAME}` (common/src/config/document.ts, the gateway's substituteEnv). */
export const PLACEHOLDER_PATTERN = '\\$\\{[A-Za-z_][A-Za-z0-9_]*\\}';

const PLACEHOLDER = { type: 'string', pattern: PLACEHOLDER_PATTERN, description: 'a ${NAME} placeholder, replaced from the environment when the file is loaded' } as const;

/** Keywords that describe a value without constraining it: they stay on the outer schema. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'examples', '$comment']);

/** Keywords whose value is one schema; keywords whose value maps names to schemas; lists of schemas. */
const ONE_SCHEMA = ['additionalProperties', 'additionalItems', 'items', 'contains', 'not', 'if', 'then', 'else'];
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies'];
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'items'];

type SchemaNode = Record<string, unknown>;

const isNode = (value: unknown): value is SchemaNode => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string field with a constraint a placeholder could fail (a type alone accepts it already). */
function constrainsStrings(node: SchemaNode): boolean {
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('string')) return Object.keys(node).some((key) => key !== 'type' && !ANNOTATIONS.has(key));
  const values = Array.isArray(node.enum) ? node.enum : 'const' in node ? [node.const] : [];
  return values.length > 0 && values.some((value) => typeof value === 'string');
}

function transform(node: SchemaNode): SchemaNode {
  const result: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.includes(key) && isNode(value)) {
      result[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, isNode(schema) ? transform(schema) : schema]));
    } else if (ONE_SCHEMA.includes(key) && isNode(value)) result[key] = transform(value);
    else if (SCHEMA_LISTS.includes(key) && Array.isArray(value)) result[key === 'oneOf' ? 'anyOf' : key] = value.map((schema) => (isNode(schema) ? transform(schema) : schema));
    else result[key] = value;
  }
  if (!constrainsStrings(result)) return result;
  const annotations = Object.fromEntries(Object.entries(result).filter(([key]) => ANNOTATIONS.has(key)));
  const strict = Object.fromEntries(Object.entries(result).filter(([key]) => !ANNOTATIONS.has(key)));
  return { ...annotations, anyOf: [strict, PLACEHOLDER] };
}

/**
 * `schema` as published: every string field also accepts a `${NAME}` placeholder. A `oneOf` becomes
 * an `anyOf`, since a placeholder may stand for either of two string alternatives.
 */
export function acceptingPlaceholders(schema: object): SchemaNode {
  return transform(schema as SchemaNode);
}
