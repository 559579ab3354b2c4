/**
 * Forms built from a context's definition: one control per attribute, typed by the definition, and
 * the posted fields read back into svc attributes.
 */
import type { PortletRequest } from '../../api';
import { autocompleteOf, displayValue, labelOf, type ContextDefinition } from './definition';
import { field, type FieldSpec, type Html } from './markup';
import { param } from './svc-portlet';
import type { AttributeValue } from './svc';

export interface AttributeFieldOptions {
  /** Values to show (what the subject holds, or what the user typed). */
  values?: Record<string, string | string[] | undefined>;
  errors?: Record<string, string>;
  readOnly?: boolean;
  /** Required fields are marked (at CREATE; an update may leave them as they are). */
  creating?: boolean;
  /** A sentence under the field (a multivalued one says "One value per line." unless told). */
  hint?: string;
}

function kindOf(definition: ContextDefinition, name: string): FieldSpec['kind'] {
  const attribute = definition.attributes[name];
  if (name === definition.passwordAttribute) return 'password';
  if (!attribute) return 'text';
  if (attribute.multivalued) return 'multi';
  if (attribute.type === 'boolean') return 'boolean';
  if (attribute.type === 'email') return 'email';
  return 'text';
}

export function attributeField(ns: string, definition: ContextDefinition, name: string, options: AttributeFieldOptions = {}): Html {
  const attribute = definition.attributes[name];
  const kind = kindOf(definition, name);
  const raw = options.values?.[name];
  const value = kind === 'multi' && Array.isArray(raw) ? raw.join('\n') : displayValue(raw);
  return field(ns, {
    name,
    label: labelOf(name),
    kind,
    value,
    required: (name === 'uniqueId' || attribute?.required === true) && options.creating === true,
    readOnly: options.readOnly,
    error: options.errors?.[name],
    hint: options.hint ?? (kind === 'multi' ? 'One value per line.' : undefined),
    autocomplete: autocompleteOf(name, definition),
  });
}

/**
 * The posted value of each named attribute. `forUpdate`: an emptied field removes the attribute
 * (`null`); at CREATE an empty field is left out. A multivalued field is one value per line.
 */
export function postedAttributes(request: PortletRequest, definition: ContextDefinition, names: readonly string[], forUpdate = false): Record<string, AttributeValue | null> {
  const attributes: Record<string, AttributeValue | null> = {};
  for (const name of names) {
    if (name === 'uniqueId') continue;
    const isPassword = name === definition.passwordAttribute;
    const text = param(request, name, !isPassword);
    if (definition.attributes[name]?.multivalued) {
      const values = text.split(/\r?\n/).map((v) => v.trim()).filter(Boolean);
      if (values.length) attributes[name] = values;
      else if (forUpdate) attributes[name] = null;
    } else if (text !== '') attributes[name] = text;
    else if (forUpdate && !isPassword) attributes[name] = null; // an empty password field keeps the password
  }
  return attributes;
}
