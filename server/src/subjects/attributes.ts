import { AttributeNotWritable, InvalidAttributes, type FieldError } from '../../../common/src/errors';
import type { AttributeDefinition, ContextConfig } from '../config/types';
import type { Attributes } from './subject';

/**
 * Who is writing, which decides the attributes they may set (SPEC section 3, mutability):
 * `self` the subject itself, `admin` an admin of the context or SYSTEM, `registrant` an anonymous
 * registration (only the context's registration attributes).
 */
export type Writer = 'self' | 'admin' | 'registrant';
export type AttributeInput = Record<string, unknown>;

const MAX_VALUES = 100;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
/** Whether `text` holds a control character no stored value may hold (tab, LF and CR may be held). */
export const holdsControlCharacter = (text: string): boolean => CONTROL.test(text);
// A lone surrogate has no UTF-8 form (SQLite would store U+FFFD: not what was acknowledged);
// noncharacters are not XML characters, and U+10FFFF is the top of the prefix search's range.
const NOT_TEXT = /\p{Surrogate}|\p{Noncharacter_Code_Point}/u;

function mayWrite(definition: AttributeDefinition, writer: Writer, creating: boolean): boolean {
  switch (definition.mutability) {
    case 'readWrite':
      return true;
    case 'admin':
    case 'writeOnly':
      return writer === 'admin' || (creating && writer === 'registrant');
    case 'immutable':
      return creating;
  }
}

function checkValue(name: string, definition: AttributeDefinition, value: unknown, path: string, errors: FieldError[]): void {
  if (typeof value !== 'string') {
    errors.push({ path, message: `${name} values are strings` });
    return;
  }
  if (value.length > definition.maxLength) errors.push({ path, message: `longer than ${definition.maxLength} characters` });
  else if (CONTROL.test(value)) errors.push({ path, message: 'control characters are not allowed' });
  else if (NOT_TEXT.test(value)) errors.push({ path, message: 'lone surrogates and Unicode noncharacters are not allowed' });
  else if (definition.type === 'boolean' && value !== 'true' && value !== 'false') errors.push({ path, message: 'must be "true" or "false"' });
  else if (definition.type === 'email' && !EMAIL.test(value)) errors.push({ path, message: 'not an e-mail address' });
}

/**
 * Validates the attributes of a CREATE or UPDATE body against the context's definition and the
 * writer's rights. Returns the typed attributes (`null` kept for UPDATE removals); throws
 * InvalidAttributes or AttributeNotWritable, before anything is written.
 */
export function checkAttributes(
  context: ContextConfig,
  input: AttributeInput,
  writer: Writer,
  creating: boolean,
): Record<string, string | string[] | null> {
  const defined = context.definition.attributes;
  const errors: FieldError[] = [];
  const notWritable: string[] = [];
  const out: Record<string, string | string[] | null> = {};
  for (const [name, value] of Object.entries(input)) {
    const path = `subject.attributes.${name}`;
    const definition = Object.hasOwn(defined, name) ? defined[name] : undefined;
    if (!definition) {
      errors.push({ path, message: `unknown attribute "${name}"` });
      continue;
    }
    const allowedForRegistrant = writer !== 'registrant' || context.registration.attributes.includes(name);
    if (!allowedForRegistrant || !mayWrite(definition, writer, creating)) {
      notWritable.push(name);
      continue;
    }
    if (value === null) {
      if (creating) errors.push({ path, message: 'null is only meaningful in an update' });
      else if (definition.required) errors.push({ path, message: 'a required attribute cannot be removed' });
      else out[name] = null;
      continue;
    }
    if (definition.multivalued) {
      if (!Array.isArray(value)) errors.push({ path, message: 'a multivalued attribute takes a list' });
      else if (value.length > MAX_VALUES) errors.push({ path, message: `at most ${MAX_VALUES} values` });
      else {
        value.forEach((v, i) => checkValue(name, definition, v, `${path}[${i}]`, errors));
        out[name] = [...new Set(value as string[])];
      }
    } else {
      checkValue(name, definition, value, path, errors);
      out[name] = value as string;
    }
  }
  if (notWritable.length) {
    throw new AttributeNotWritable(`not writable by this caller: ${notWritable.join(', ')}`, {
      errors: notWritable.map((name) => ({ path: `subject.attributes.${name}`, message: 'not writable' })),
      extensions: { attributes: notWritable },
    });
  }
  if (errors.length) throw new InvalidAttributes('the attributes do not fit the context definition', { errors });
  return out;
}

/** Required attributes missing after defaults were applied. */
export function missingRequired(context: ContextConfig, attributes: Attributes): FieldError[] {
  return Object.entries(context.definition.attributes)
    .filter(([name, d]) => d.required && (attributes[name] === undefined || attributes[name] === ''))
    .map(([name]) => ({ path: `subject.attributes.${name}`, message: 'required' }));
}

/** What a reader may see: write-only attributes are never returned. */
export function readable(context: ContextConfig, attributes: Attributes): Attributes {
  const out: Attributes = {};
  // In definition order, so that every answer lists attributes the same way.
  for (const [name, definition] of Object.entries(context.definition.attributes)) {
    if (definition.mutability !== 'writeOnly' && attributes[name] !== undefined) out[name] = attributes[name];
  }
  return out;
}
