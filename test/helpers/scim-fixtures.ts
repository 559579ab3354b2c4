import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The SCIM fixtures (SPEC 14): RFC 7643/7644 examples and Entra ID's and Okta's published requests,
 * copied from the project's shared `scim-fixtures` into test/fixtures/scim (its README says where each
 * came from and what was repaired), so that a fresh clone tests against them wherever it stands.
 */
export const SCIM_FIXTURES = join(__dirname, '..', 'fixtures', 'scim');

/** One fixture file, parsed. */
export function scimFixture<T>(file: string): T {
  return JSON.parse(readFileSync(join(SCIM_FIXTURES, file), 'utf8')) as T;
}
