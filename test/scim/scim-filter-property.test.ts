/**
 * SPEC 14: a filter gives the same subjects through SCIM (GET /Users?filter=, SCIM's attribute names)
 * as through the REST SEARCH (filter=, svc's attribute names), for filters fast-check makes: every
 * comparison operator and pr, and, or, not, over the mapped attributes, on users provisioned over SCIM.
 */
import fc from 'fast-check';
import type { TestServer } from '../helpers/core-server';
import { sessionCookie } from '../helpers/sessions';
import { scimClient, startScimServer, type ScimClient } from './scim-client';

let server: TestServer;
let scim: ScimClient;
let admin: string;

/** [SCIM attribute, svc attribute] under the demo's scim.attributes. */
const ATTRIBUTES: Array<[string, string]> = [
  ['userName', 'userName'],
  ['name.givenName', 'givenName'],
  ['name.familyName', 'familyName'],
  ['displayName', 'displayName'],
  ['externalId', 'externalId'],
  ['emails.value', 'mail'],
];
const OPS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'] as const;
const GIVEN = ['Ada', 'ada', 'Ben', 'Cleo', 'Åsa', 'Émile'];
const FAMILY = ['Berg', 'Dahl', 'berg', 'Strand'];
const VALUES = ['a', 'A', 'ada', 'be', 'berg', 'x', 'n3', '@example', '.org', 'émile', 'åsa', 'user-1', 'E'];

interface Pair {
  scim: string;
  rest: string;
}

const leaf: fc.Arbitrary<Pair> = fc.oneof(
  fc.tuple(fc.constantFrom(...ATTRIBUTES), fc.constantFrom(...OPS), fc.constantFrom(...VALUES)).map(([[s, r], op, v]) => ({ scim: `${s} ${op} ${JSON.stringify(v)}`, rest: `${r} ${op} ${JSON.stringify(v)}` })),
  fc.constantFrom(...ATTRIBUTES).map(([s, r]) => ({ scim: `${s} pr`, rest: `${r} pr` })),
);

const filter: fc.Arbitrary<Pair> = fc.letrec<{ f: Pair }>((tie) => ({
  f: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.tuple(tie('f'), fc.constantFrom('and', 'or'), tie('f')).map(([a, op, b]) => ({ scim: `(${a.scim}) ${op} (${b.scim})`, rest: `(${a.rest}) ${op} (${b.rest})` })),
    tie('f').map((a) => ({ scim: `not (${a.scim})`, rest: `not (${a.rest})` })),
  ),
})).f;

beforeAll(async () => {
  server = await startScimServer();
  scim = scimClient(server);
  admin = await sessionCookie(server, 'USER', { uniqueId: 'alice', contextId: 'employees' });
  for (let i = 0; i < 24; i++) {
    const body = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: `user-${i}`,
      ...(i % 5 === 4 ? {} : { name: { givenName: GIVEN[i % GIVEN.length], ...(i % 3 ? { familyName: FAMILY[i % FAMILY.length] } : {}) } }),
      ...(i % 4 === 0 ? {} : { displayName: `${GIVEN[i % GIVEN.length]} n${i}` }),
      ...(i % 2 ? { externalId: `E${i}` } : {}),
      emails: [{ value: `u${i}@example.${i % 3 ? 'org' : 'com'}`, primary: true }],
    };
    expect((await scim.request('POST', '/Users', body)).status).toBe(201);
  }
});
afterAll(() => server.stop());

async function restIds(text: string): Promise<string[]> {
  const response = await fetch(`${server.baseUrl}/resources/contexts/employees/subjects?quantity=1000&filter=${encodeURIComponent(text)}`, { headers: { cookie: admin, accept: 'application/json' } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { results: Array<{ uniqueId: string }> };
  return body.results.map((r) => r.uniqueId).filter((id) => id.startsWith('user-')).sort();
}

async function scimIds(text: string): Promise<string[]> {
  const answer = await scim.request('GET', `/Users?count=200&filter=${encodeURIComponent(text)}`);
  expect(answer.status).toBe(200);
  return (answer.body!.Resources as Array<{ id: string }>).map((r) => r.id).filter((id) => id.startsWith('user-')).sort();
}

test('a filter selects the same subjects through SCIM and through the REST SEARCH', async () => {
  await fc.assert(
    fc.asyncProperty(filter, async (pair) => {
      expect(await scimIds(pair.scim)).toEqual(await restIds(pair.rest));
    }),
    { numRuns: 150 },
  );
});
