/**
 * SCIM Users over a real core (SPEC 14): create, read, list with filters, paging and sorting, PUT,
 * PATCH, DELETE; the bearer token and its context; SCIM errors with scimType; what a SCIM write
 * does to svc (audit with the client, sessions ended on deactivation).
 */
import { startScimServer, scimClient, type ScimClient } from './scim-client';
import type { TestServer } from '../helpers/core-server';

let server: TestServer;
let scim: ScimClient;

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

beforeAll(async () => {
  server = await startScimServer();
  scim = scimClient(server);
});
afterAll(() => server.stop());

const newUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER],
  userName,
  name: { givenName: 'Barbara', familyName: 'Jensen' },
  emails: [{ value: `${userName.replace(/@.*/, '')}@example.org`, type: 'work', primary: true }],
  active: true,
  ...extra,
});

describe('Users', () => {
  it('creates a user whose id is its userName, and reads it back with meta and an ETag', async () => {
    const created = await scim.request('POST', '/Users', newUser('bjensen', { externalId: 'ext-1', displayName: 'Babs' }));
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(created.body).toMatchObject({ id: 'bjensen', userName: 'bjensen', externalId: 'ext-1', displayName: 'Babs', active: true, name: { givenName: 'Barbara', familyName: 'Jensen' }, emails: [{ value: 'bjensen@example.org', primary: true }] });
    const meta = created.body!.meta as Record<string, string>;
    expect(created.headers.get('location')).toBe(meta.location);
    expect(meta).toMatchObject({ resourceType: 'User', version: created.headers.get('etag') });
    const read = await scim.request('GET', '/Users/bjensen');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: 'bjensen', userName: 'bjensen' });
    expect(read.body).not.toHaveProperty('password');
  });

  it('generates the id when the userName is no valid or free uniqueId, and keeps userName unique case-insensitively', async () => {
    const made = await scim.request('POST', '/Users', newUser('Jane Doe@corp.example', { emails: [{ value: 'jane@example.org' }] }));
    expect(made.status).toBe(201);
    expect(made.body!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.body!.userName).toBe('Jane Doe@corp.example');
    const again = await scim.request('POST', '/Users', newUser('JANE DOE@corp.example', { emails: [{ value: 'jane2@example.org' }] }));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ schemas: [ERROR], status: '409', scimType: 'uniqueness' });
  });

  it('filters through the store: userName case-insensitively, emails value paths, active', async () => {
    await scim.request('POST', '/Users', newUser('filterme', { externalId: 'EXT-F' }));
    const byName = await scim.request('GET', `/Users?filter=${encodeURIComponent('userName eq "FILTERME"')}`);
    expect(byName.body).toMatchObject({ totalResults: 1, Resources: [{ id: 'filterme' }] });
    const byPath = await scim.request('GET', `/Users?filter=${encodeURIComponent('emails[type eq "work" and value co "filterme@"]')}`);
    expect(byPath.body).toMatchObject({ totalResults: 1, Resources: [{ id: 'filterme' }] });
    const byExternal = await scim.request('GET', `/Users?filter=${encodeURIComponent('externalId eq "EXT-F"')}&attributes=userName`);
    expect(byExternal.body).toMatchObject({ totalResults: 1, Resources: [{ id: 'filterme', userName: 'filterme' }] });
    expect((byExternal.body!.Resources as Array<Record<string, unknown>>)[0]).not.toHaveProperty('emails');
    const none = await scim.request('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody-here"')}`);
    expect(none.body).toMatchObject({ totalResults: 0, Resources: [] });
    const bad = await scim.request('GET', `/Users?filter=${encodeURIComponent('userName eq')}`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ scimType: 'invalidFilter' });
  });

  it('pages and sorts', async () => {
    const page = await scim.request('GET', '/Users?startIndex=2&count=2&sortBy=userName&sortOrder=descending');
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ startIndex: 2, itemsPerPage: 2 });
    expect(page.body!.totalResults).toBeGreaterThanOrEqual(4);
  });

  it('PATCHes as Entra ID does: capitalised ops, "False", value paths, an add already there', async () => {
    await scim.request('POST', '/Users', newUser('entra1'));
    const patched = await scim.request('PATCH', '/Users/entra1', {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'entra1.new@example.org' },
        { op: 'Add', path: 'name.givenName', value: 'Barbara' },
        { op: 'Replace', value: { displayName: 'Entra One', 'name.familyName': 'Jones' } },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ displayName: 'Entra One', name: { givenName: 'Barbara', familyName: 'Jones' }, emails: [{ value: 'entra1.new@example.org' }] });
    const disabled = await scim.request('PATCH', '/Users/entra1', { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] });
    expect(disabled.body).toMatchObject({ active: false });
    expect((await server.core.subjects.read('employees', 'entra1')).attributes.disabled).toBe('true');
  });

  it('replaces with PUT (Okta deactivates so), honours If-Match, and deletes', async () => {
    const created = await scim.request('POST', '/Users', newUser('okta1'));
    const stale = created.headers.get('etag')!;
    const put = await scim.request('PUT', '/Users/okta1', newUser('okta1', { active: false, id: 'okta1', meta: { resourceType: 'User' } }), { 'if-match': stale });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ active: false });
    const conflict = await scim.request('PUT', '/Users/okta1', newUser('okta1', { active: true }), { 'if-match': stale });
    expect(conflict.status).toBe(412);
    expect((await scim.request('DELETE', '/Users/okta1')).status).toBe(204);
    const gone = await scim.request('GET', '/Users/okta1');
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ schemas: [ERROR], status: '404' });
  });

  it('refuses a wrong token (401, counted), and a token at another context', async () => {
    const wrong = await scimClient(server, 'employees', 'svcscim_' + 'A'.repeat(43)).request('GET', '/Users');
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const other = await scimClient(server, 'customers', scimClient(server).root && 'svcscim_' + 'B'.repeat(43)).request('GET', '/Users');
    expect(other.status).toBe(401);
    const crossed = await scimClient(server, 'customers', (await import('./scim-client')).SCIM_TOKENS['scim-employees']).request('GET', '/Users');
    expect(crossed.status).toBe(401);
  });

  it('answers 501 for what svc does not offer', async () => {
    expect((await scim.request('POST', '/Bulk', { schemas: ['urn:ietf:params:scim:api:messages:2.0:BulkRequest'], Operations: [] })).status).toBe(501);
    expect((await scim.request('POST', '/Users/.search', { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'] })).status).toBe(501);
    expect((await scim.request('GET', '?filter=userName%20eq%20%22x%22')).status).toBe(501);
  });
});
