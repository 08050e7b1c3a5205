// Reads a tool's JSON Schema (its input_schema) into the fields of the
// inspector's arguments form: one per property, typed string, integer,
// number, boolean, enum or JSON (objects, arrays and anything richer).

/** numbers: a list of numbers (an array of integer or number items), typed as "0, 1". */
export type FieldKind = 'string' | 'text' | 'integer' | 'number' | 'boolean' | 'enum' | 'numbers' | 'json';

export interface SchemaField {
  name: string;
  kind: FieldKind;
  required: boolean;
  title?: string;
  description?: string;
  enumValues?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  format?: string;
  /** for json fields: the JSON type expected ("object", "array", …) */
  jsonType?: string;
  /** for numbers fields: the items are whole numbers */
  integerItems?: boolean;
}

export interface SchemaForm {
  fields: SchemaField[];
  /** the schema accepts properties it does not list */
  open: boolean;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

// Long-form strings get a text area.
const LONG_NAMES = /^(content|body|text|prompt|message|script|template|query|code|description|html|markdown|data)$/i;

function baseType(s: Obj): string | undefined {
  const t = s.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.find((x) => x !== 'null') as string | undefined;
  return undefined;
}

export function fieldFor(name: string, s: unknown, required: boolean): SchemaField {
  const schema = isObj(s) ? s : {};
  const f: SchemaField = { name, kind: 'json', required };
  if (typeof schema.title === 'string') f.title = schema.title;
  if (typeof schema.description === 'string') f.description = schema.description;
  if ('default' in schema) f.default = schema.default;
  if (typeof schema.minimum === 'number') f.minimum = schema.minimum;
  if (typeof schema.maximum === 'number') f.maximum = schema.maximum;
  if (typeof schema.format === 'string') f.format = schema.format;
  const t = baseType(schema);
  if (Array.isArray(schema.enum) && schema.enum.length && schema.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
    f.kind = 'enum';
    f.enumValues = schema.enum;
    return f;
  }
  switch (t) {
    case 'string': {
      const long =
        LONG_NAMES.test(name) ||
        (typeof schema.maxLength === 'number' && schema.maxLength > 200) ||
        schema.format === 'textarea' ||
        (typeof schema.contentMediaType === 'string');
      f.kind = long ? 'text' : 'string';
      return f;
    }
    case 'integer':
    case 'number':
    case 'boolean':
      f.kind = t;
      return f;
    case 'array': {
      const it = isObj(schema.items) ? baseType(schema.items) : undefined;
      if (it === 'integer' || it === 'number') {
        f.kind = 'numbers';
        f.integerItems = it === 'integer';
        return f;
      }
      f.kind = 'json';
      f.jsonType = t;
      return f;
    }
    default:
      f.kind = 'json';
      f.jsonType = t ?? (isObj(schema.properties) ? 'object' : undefined);
      return f;
  }
}

/** schemaForm lists the fields of an object schema, required ones first. */
export function schemaForm(schema: unknown): SchemaForm {
  if (!isObj(schema)) return { fields: [], open: true };
  const props = isObj(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((x) => typeof x === 'string') : []);
  const fields = Object.entries(props).map(([name, s]) => fieldFor(name, s, required.has(name)));
  // Required first, otherwise in the schema's order.
  fields.sort((a, b) => Number(b.required) - Number(a.required));
  return { fields, open: schema.additionalProperties !== false };
}

/** missingRequired lists the required fields args leaves empty. */
export function missingRequired(form: SchemaForm, args: Record<string, unknown> | undefined): string[] {
  return form.fields
    .filter((f) => f.required)
    .filter((f) => {
      const v = args?.[f.name];
      return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
    })
    .map((f) => f.name);
}

/** jsonProblem says why v does not fit the expected JSON type ('' if it does). */
export function jsonTypeProblem(v: unknown, jsonType: string | undefined): string {
  if (!jsonType) return '';
  const actual = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
  if (jsonType === 'integer') return Number.isInteger(v) ? '' : 'Expected a whole number.';
  if (jsonType === actual) return '';
  return `Expected a JSON ${jsonType}.`;
}
