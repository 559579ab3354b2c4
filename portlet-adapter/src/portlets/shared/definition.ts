/**
 * A context's definition as `GET {gw}/api/contexts/{c}` describes it (SPEC section 3): the
 * portlets build every form and every view from it, never from a list of their own.
 */
export type Mutability = 'readWrite' | 'admin' | 'immutable' | 'writeOnly';

export interface AttributeDefinition {
  type: string;
  multivalued?: boolean;
  required?: boolean;
  unique?: boolean;
  mutability: Mutability;
}

export interface ContextDefinition {
  id: string;
  attributes: Record<string, AttributeDefinition>;
  searchAttributes: string[];
  registration: boolean;
  registrationAttributes?: string[];
  passwordAttribute?: string | null;
  forgottenPassword: boolean;
  /** SPEC 16: `questions`, `email` or both (a core before it says nothing: questions). */
  forgottenPasswordMethods?: Array<'questions' | 'email'>;
  /** SPEC 16: a registrant confirms the address by a mailed link before logging in. */
  verifyEmail?: boolean;
}

/** The attributes that may be shown: write-only ones never are. */
export function readableAttributes(definition: ContextDefinition): string[] {
  return Object.entries(definition.attributes)
    .filter(([, d]) => d.mutability !== 'writeOnly')
    .map(([name]) => name);
}

/** `givenName` → `Given name`; the definition has no labels, so names are made readable. */
export function labelOf(name: string): string {
  // uniqueId is what the portal calls a user name; SCIM's userName (SPEC 14) is a sign-in name beside it.
  const known: Record<string, string> = { uniqueId: 'User name', mail: 'E-mail address', userName: 'Sign-in name', externalId: 'External ID' };
  if (known[name]) return known[name];
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_.-]+/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What the browser should offer to fill in (WCAG 1.3.5). */
export function autocompleteOf(name: string, definition: ContextDefinition, purpose: 'new' | 'current' = 'new'): string | undefined {
  if (name === definition.passwordAttribute) return purpose === 'new' ? 'new-password' : 'current-password';
  const known: Record<string, string> = { uniqueId: 'username', mail: 'email', givenName: 'given-name', familyName: 'family-name' };
  return known[name];
}

/** An attribute's value as shown: a list joined by commas. */
export function displayValue(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(', ') : value;
}
