/**
 * The seed's five operations: the policies, the check, AuthZEN's `action.name` and the client
 * library name them alike. Dependency-free on purpose: the client library carries this file.
 */
export const OPERATIONS = ['CREATE', 'READ', 'UPDATE', 'DELETE', 'SEARCH'] as const;

export type Operation = (typeof OPERATIONS)[number];

/** `name` as one of the five, or undefined (the check, AuthZEN and SOAP refuse it each in its own words). */
export function operationNamed(name: string): Operation | undefined {
  return OPERATIONS.find((operation) => operation === name);
}
