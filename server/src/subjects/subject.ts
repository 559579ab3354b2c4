/** A subject: a uniqueId and attributes, each a string or a list of strings (SPEC section 3). */
export type AttributeValue = string | string[];
export type Attributes = Record<string, AttributeValue>;

export interface Subject {
  uniqueId: string;
  attributes: Attributes;
}

/** A subject as a store holds it: `version` drives ETag and If-Match. */
export interface StoredSubject extends Subject {
  version: number;
  created: string;
  modified: string;
}

/** Case folding for everything compared case-insensitively: login names, unique values, search. */
export function fold(value: string): string {
  return value.normalize('NFC').toLowerCase();
}

export function valuesOf(value: AttributeValue | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
