/**
 * Self-Service and User Admin as bob and alice would use them, over a real gateway and core: the
 * controls the check allows and no others, every button of a render from one batch of
 * evaluations, edits with If-Match, a form sent twice refused by the core and explained, and the
 * core's state checked after each step.
 */
import { PortletMode } from '../../portlet-adapter/src/api';
import { TEST_CREDENTIALS } from '../helpers/core-server';
import { ContainerWindow as TestWindow } from './harness';
import { coreLogin, startSvc, textOf, windowOf, type Svc } from './setup';

let svc: Svc;
beforeAll(async () => {
  svc = await startSvc();
});
afterAll(() => svc.stop());

const admin = () => windowOf(svc, 'user-admin', 'employees/alice', ['admin']);

describe('Self-Service', () => {
  test('bob sees his profile, never a write-only attribute, and the two controls the check allows', async () => {
    const window = windowOf(svc, 'self-service', 'employees/bob', ['user']);
    const markup = await window.render();
    const text = textOf(markup);
    expect(text).toContain('bob@example.com');
    expect(text).not.toMatch(/Password questions|Password answers|\$argon2/);
    expect(markup).toContain('>Edit profile</a>');
    expect(markup).toContain('>Change password</a>');
    expect(window.gateway.batches()).toBe(1);
  });

  test('edit: readWrite fields editable, admin-only ones read-only; a second submission of the same form is refused (412) and explained', async () => {
    const window = windowOf(svc, 'self-service', 'employees/bob', ['user']);
    window.renderParameters = { view: ['edit'] };
    const form = await window.render();
    expect(form).toMatch(/<input type="text" id="svc_w1_f_givenName" name="givenName" class="portlet-form-input-field"[^>]*value="Bob"/);
    expect(form).toMatch(/<textarea id="svc_w1_f_roles"[^>]*readonly/);
    const fields = TestWindow.formFields(form, 'save');
    expect(fields.etag).toMatch(/^"\d+"$/);

    await window.action({ ...fields, givenName: 'Robert' });
    expect(textOf(await window.render())).toContain('Your profile was saved. User name bob');
    const read = await svc.core.core.subjects.read('employees', 'bob');
    expect(read.attributes.givenName).toBe('Robert');

    await window.action({ ...fields, givenName: 'Bobby' }); // Back, then submit again with the old version
    expect(textOf(await window.render())).toContain('Your profile was changed since this form was shown (was the form sent twice?); nothing was saved');
    expect((await svc.core.core.subjects.read('employees', 'bob')).attributes.givenName).toBe('Robert');
  });

  test('change password: the new one logs in, the old one does not; the same form again reads as a wrong current password', async () => {
    const window = windowOf(svc, 'self-service', 'employees/bob', ['user']);
    window.renderParameters = { view: ['password'] };
    expect(await window.render()).toContain('autocomplete="current-password"');
    const old = TEST_CREDENTIALS.users.bob;
    const form = { op: 'password', oldPassword: old, newPassword: 'Bob-new-pass-77', newPasswordRepeat: 'Bob-new-pass-77' };
    await window.action(form);
    expect(textOf(await window.render())).toContain('Your password was changed');
    expect(await coreLogin(svc, 'bob', 'Bob-new-pass-77')).toBe(true);
    expect(await coreLogin(svc, 'bob', old)).toBe(false);

    await window.action(form);
    const text = textOf(await window.render());
    expect(text).toContain('The current password is not correct. If you sent this form twice, the first one already changed your password.');
    expect(text).toContain('Current password does not match.');
  });

  test('EDIT mode stores which attributes to show; VIEW then shows only those', async () => {
    const window = windowOf(svc, 'self-service', 'employees/bob', ['user']);
    window.mode = PortletMode.EDIT;
    const prefs = await window.render();
    expect(prefs).toContain('<legend class="portlet-form-label">Attributes to show</legend>');
    await window.action({ op: 'preferences', attributes: ['mail'] });
    expect(window.mode).toBe(PortletMode.VIEW);
    const text = textOf(await window.render());
    expect(text).toContain('Your preferences were saved');
    expect(text).toContain('E-mail address');
    expect(text).not.toContain('Family name');
  });
});

describe('User Admin', () => {
  test('alice: search form, paged table, every row\'s buttons from one batch; bob is told he may not search', async () => {
    const window = admin();
    const markup = await window.render();
    expect(markup).toContain('for="svc_w1_f_search">Search');
    expect(markup).toContain('for="svc_w1_f_filter">SCIM filter');
    expect(markup).toMatch(/<th class="portlet-table-header" scope="col"><a class="svc-sort" href="[^"]*w1\.p\.sort=mail"[^>]*>E-mail address/);
    expect(markup).toContain('aria-label="Edit bob"');
    expect(markup).toContain('aria-label="Delete bob"');
    expect(markup).toContain('>Create subject</a>');
    expect(window.gateway.batches()).toBe(1);
    // The page's one SEARCH asks each result's status with it.
    expect(window.gateway.calls.filter((c) => c.method === 'GET' && c.path === '/contexts/employees/subjects').map((c) => c.query?.include)).toEqual(['status']);

    const bob = windowOf(svc, 'user-admin', 'employees/bob', ['user']);
    const refused = textOf(await bob.render());
    expect(refused).toBe('You are not allowed to manage the subjects of employees.');
  });

  test('a filter the core refuses is explained beside the field; free text finds', async () => {
    const window = admin();
    await window.action({ op: 'search', search: '', filter: 'password pr' });
    const bad = await window.render();
    expect(bad).toContain('id="svc_w1_f_filter_error"');
    expect(bad).toContain('value="password pr"');
    await window.action({ op: 'search', search: 'alice', filter: '' });
    const found = await window.render();
    expect(found).toContain('<th scope="row">alice</th>');
    expect(found).not.toContain('<th scope="row">bob</th>');
  });

  test('create, view, edit, delete after confirmation; each form sent twice is refused by the core and explained', async () => {
    const window = admin();
    window.renderParameters = { view: ['create'] };
    expect(await window.render()).toContain('id="svc_w1_f_passwordRepeat"');
    const create = { op: 'create', view: 'create', uniqueId: 'erin', mail: 'erin@example.org', givenName: 'Erin', roles: 'user', password: 'Erin-pass-2468', passwordRepeat: 'Erin-pass-2468' };
    await window.action(create);
    expect(textOf(await window.render())).toContain('erin was created.');
    expect(await coreLogin(svc, 'erin', 'Erin-pass-2468')).toBe(true);
    await window.action(create);
    expect(textOf(await window.render())).toContain('A subject with this user name or e-mail address already exists');

    window.renderParameters = { view: ['edit'], subject: ['erin'] };
    const edit = TestWindow.formFields(await window.render(), 'save');
    await window.action({ ...edit, familyName: 'Example' });
    expect(textOf(await window.render())).toContain('erin was saved.');
    expect((await svc.core.core.subjects.read('employees', 'erin')).attributes.familyName).toBe('Example');
    await window.action({ ...edit, familyName: 'Twice' });
    expect(textOf(await window.render())).toContain('erin was changed since this form was shown');

    window.renderParameters = { view: ['delete'], subject: ['erin'] };
    const confirm = await window.render();
    expect(textOf(confirm)).toContain('Delete erin? This ends the sessions of erin and cannot be undone.');
    const remove = TestWindow.formFields(confirm, 'delete');
    await window.action(remove);
    expect(textOf(await window.render())).toContain('erin was deleted.');
    await expect(svc.core.core.subjects.read('employees', 'erin')).rejects.toMatchObject({ code: 'not_found' });
    await window.action(remove);
    expect(textOf(await window.render())).toContain('erin does not exist (any more): it was already deleted.');
  });

  test('lift a lockout: bob, locked by five wrong passwords, logs in again at once', async () => {
    const current = 'Bob-new-pass-77'; // set by the Self-Service test above
    for (let i = 0; i < 5; i++) expect(await coreLogin(svc, 'bob', 'wrong-password')).toBe(false);
    expect(await coreLogin(svc, 'bob', current)).toBe(false); // locked: the right password fails too
    const window = admin();
    window.renderParameters = { view: ['show'], subject: ['bob'] };
    const shown = await window.render();
    expect(shown).toContain('>Lift lockout</button>');
    await window.action(TestWindow.formFields(shown, 'lift'));
    expect(textOf(await window.render())).toContain('Every lockout of bob was lifted; bob can log in again.');
    expect(await coreLogin(svc, 'bob', current)).toBe(true);
  });

  test('status column and sortable headers: bob locked is marked and alone offers Lift lockout; the headers are render URLs keeping the search, with aria-sort', async () => {
    for (let i = 0; i < 5; i++) expect(await coreLogin(svc, 'bob', 'wrong-again')).toBe(false);
    const window = admin();
    const markup = await window.render();
    const rowOf = (id: string) => markup.split('<tr').find((r) => r.includes(`<th scope="row">${id}</th>`)) ?? '';
    expect(rowOf('bob')).toMatch(/<span class="svc-status svc-status-locked">Locked until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/span>/);
    expect(rowOf('bob')).toContain('aria-label="Lift lockout of bob"');
    expect(rowOf('alice')).toContain('<span class="svc-status svc-status-active">Active</span>');
    expect(rowOf('alice')).not.toContain('Lift lockout');
    expect(window.gateway.batches()).toBe(1);

    // Sorted by the e-mail address, descending, within a search: the core orders, the header says so.
    await window.action({ op: 'search', search: '', filter: 'mail ew "@example.com"' });
    window.renderParameters = { ...window.renderParameters, sort: ['mail'], order: ['desc'] };
    const sorted = await window.render();
    expect([...sorted.matchAll(/<th scope="row">([^<]+)<\/th>/g)].map((m) => m[1]).slice(0, 2)).toEqual(['bob', 'alice']);
    expect(sorted).toMatch(/<th class="portlet-table-header" scope="col" aria-sort="descending"><a class="svc-sort" href="([^"]+)">E-mail address/);
    const ascending = /aria-sort="descending"><a class="svc-sort" href="([^"]+)"/.exec(sorted)![1].replace(/&#38;/g, '&');
    expect(new URL(ascending, 'http://portal').searchParams.get('w1.p.filter')).toBe('mail ew "@example.com"');
    expect(new URL(ascending, 'http://portal').searchParams.get('w1.p.sort')).toBe('mail');
    expect(new URL(ascending, 'http://portal').searchParams.get('w1.p.order')).toBeNull();
    // Export CSV: the same search in the same order, through the portal's REST pass-through.
    const csv = /id="svc_w1_export" href="([^"]+)"/.exec(sorted)![1].replace(/&#38;/g, '&');
    expect(csv).toBe('/portal/api/contexts/employees/subjects?filter=mail+ew+%22%40example.com%22&sort=mail&order=desc&format=csv');
    // A new search keeps the order; an order the context cannot sort by is the default, not an error.
    await window.action({ ...TestWindow.formFields(sorted, 'search'), search: 'bo' });
    expect(window.renderParameters).toMatchObject({ sort: ['mail'], order: ['desc'], search: ['bo'] });
    window.renderParameters = { sort: ['password'] };
    expect(await window.render()).toContain('aria-sort="ascending"><a class="svc-sort" href="/portal/page/home?w1.p.view=list&#38;w1.p.order=desc">User name');
  });

  test("a subject's view: its status with Lift lockout while locked, its last 20 events and a link to older ones, paged", async () => {
    for (let i = 0; i < 25; i++) await coreLogin(svc, 'bob', `wrong-${i}`);
    const window = admin();
    window.renderParameters = { view: ['show'], subject: ['bob'] };
    const shown = await window.render();
    expect(textOf(shown)).toMatch(/Status Locked until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    expect(shown).toContain('>Lift lockout</button>');
    expect(shown).toContain('<h4 class="portlet-section-subheader">Recent events</h4>');
    expect(shown.match(/<tr class="portlet-table-(body|alternate)"><td class="svc-event-when">/g)).toHaveLength(20);
    expect(textOf(shown)).toContain('Login Failed (');
    expect(window.gateway.batches()).toBe(1);
    // Beside that batch, one READ brought the second factor, the lock and the events (issue 28): no request of their own.
    const reads = window.gateway.calls.filter((c) => c.method === 'GET' && c.path.startsWith('/contexts/employees/subjects/'));
    expect(reads.map((c) => [c.path, c.query?.include])).toEqual([['/contexts/employees/subjects/bob', 'otp,lockout,events']]);
    const older = /href="([^"]+)">Older events of bob</.exec(shown)![1].replace(/&#38;/g, '&');
    const query = new URL(older, 'http://portal').searchParams;
    expect([query.get('w1.p.view'), query.get('w1.p.subject'), query.get('w1.p.events')]).toEqual(['events', 'bob', '20']);

    window.renderParameters = { view: ['events'], subject: ['bob'], events: ['20'] };
    const page = await window.render();
    expect(textOf(page)).toMatch(/Events 21 to \d+ of \d+ of bob, newest first/);
    expect(page).toContain('>Newer events</a>');
    expect(page).toContain('>Back to bob</a>');

    // bob may read his own events, not another's: the view says so instead of listing them.
    const bobs = windowOf(svc, 'user-admin', 'employees/bob', ['user']);
    bobs.renderParameters = { view: ['events'], subject: ['alice'] };
    expect(textOf(await bobs.render())).toBe('You are not allowed to read the events of alice.');

    await window.action({ op: 'lift', target: 'bob', view: 'show', subject: 'bob' });
    expect(textOf(await window.render())).toContain('Status Active');
  });

  test('bulk: three checked rows, one confirmation page listing them (allowed rows from one batch, alice herself never), disabled in the core; sent twice does no harm; bulk delete, then again: already deleted', async () => {
    for (const id of ['dora', 'emil', 'finn']) await svc.core.core.subjects.create('employees', id, { mail: `${id}@example.org`, password: 'Bulk-pass-1357' }, 'admin');
    const window = admin();
    const list = await window.render();
    expect(list).toContain('<label class="portlet-form-label" for="svc_w1_bulk_action">With the selected subjects</label>');
    expect(list).toContain('<input type="checkbox" form="svc_w1_bulk" name="selected" value="dora">');
    expect(list).not.toContain('value="alice">'); // her own row has no checkbox
    const batches = window.gateway.batches();

    await window.action({ ...TestWindow.formFields(list, 'choose'), bulk: 'disable', selected: ['dora', 'emil', 'finn', 'alice'] });
    expect(window.renderParameters).toMatchObject({ view: ['bulk'], bulk: ['disable'], selected: ['dora', 'emil', 'finn', 'alice'] });
    const confirm = await window.render();
    expect(window.gateway.batches()).toBe(batches + 1);
    const text = textOf(confirm);
    expect(text).toContain('Disable these 3 subjects? This ends their sessions; they cannot log in until enabled again. dora emil finn');
    expect(text).toContain('Left as they are: alice: your own account is not changed by a bulk action');
    const targets = [...confirm.matchAll(/<input type="hidden" name="target" value="([^"]+)">/g)].map((m) => m[1]);
    expect(targets).toEqual(['dora', 'emil', 'finn']);
    const fields = { ...TestWindow.formFields(confirm, 'bulk'), target: targets };
    await window.action(fields);
    expect(textOf(await window.render())).toContain('3 subjects were disabled: dora, emil, finn.');
    for (const id of targets) expect((await svc.core.core.subjects.read('employees', id)).attributes.disabled).toBe('true');
    expect(await coreLogin(svc, 'dora', 'Bulk-pass-1357')).toBe(false);
    const after = await window.render();
    expect(after.split('<tr').find((r) => r.includes('<th scope="row">emil</th>'))).toContain('<span class="svc-status svc-status-disabled">Disabled</span>');

    await window.action(fields); // Back, then the confirmation again: the same write, no harm
    expect(textOf(await window.render())).toContain('3 subjects were disabled');

    await window.action({ op: 'choose', view: 'list', bulk: 'enable', selected: ['finn'] });
    const enable = await window.render();
    await window.action({ ...TestWindow.formFields(enable, 'bulk'), target: ['finn'] });
    expect(textOf(await window.render())).toContain('1 subject was enabled: finn.');
    expect(await coreLogin(svc, 'finn', 'Bulk-pass-1357')).toBe(true);

    await window.action({ op: 'choose', view: 'list', bulk: 'delete', selected: ['dora', 'emil'] });
    const remove = await window.render();
    expect(textOf(remove)).toContain('Delete these 2 subjects? This ends their sessions and cannot be undone. dora emil');
    const removal = { ...TestWindow.formFields(remove, 'bulk'), target: ['dora', 'emil'] };
    await window.action(removal);
    expect(textOf(await window.render())).toContain('2 subjects were deleted: dora, emil.');
    await window.action(removal);
    expect(textOf(await window.render())).toContain('No subject was deleted. dora, emil do not exist (any more): already deleted.');

    // Nothing checked, or bob (no admin) confirming: refused in words, nothing changed.
    await window.action({ op: 'choose', view: 'list', bulk: 'disable' });
    expect(textOf(await window.render())).toContain('Select at least one subject');
    const bob = windowOf(svc, 'user-admin', 'employees/bob', ['user']);
    bob.renderParameters = { view: ['bulk'], bulk: ['delete'], selected: ['finn'] };
    const bobsMarkup = await bob.render();
    expect(textOf(bobsMarkup)).toContain('You are not allowed to delete any of the selected subjects.');
    await bob.action({ op: 'bulk', view: 'list', bulk: 'delete', target: ['finn'] });
    bob.renderParameters = { view: ['bulk'], bulk: ['delete'], selected: ['finn'] };
    expect(textOf(await bob.render())).toContain('No subject was deleted. finn: You are not allowed to delete finn.');
    expect((await svc.core.core.subjects.read('employees', 'finn')).uniqueId).toBe('finn');
  });

  test('bulk across pages: the pager posts the ticks and keeps them, other pages counted and carried, Continue confirms the whole selection in one batch; the bounds refused in words', async () => {
    const ids = Array.from({ length: 22 }, (_v, i) => `pg-${String(i + 1).padStart(2, '0')}`);
    for (const id of ids) await svc.core.core.subjects.create('employees', id, { mail: `${id}@example.org` }, 'admin');
    const window = admin();
    window.renderParameters = { filter: ['uniqueId sw "pg-"'] };
    const hidden = (markup: string) => [...TestWindow.formOf(markup, 'choose').matchAll(/<input type="hidden" name="selected" value="([^"]+)">/g)].map((m) => m[1]);
    const ticked = (markup: string) => [...markup.matchAll(/name="selected" value="([^"]+)" checked>/g)].map((m) => m[1]);

    const first = await window.render();
    // With a bulk form, the pager is its buttons: a move posts the ticks of the page.
    expect(first).toContain('<button type="submit" form="svc_w1_bulk" name="moveTo" value="20" class="portlet-form-button svc-pager-button">Next page</button>');
    expect(first).not.toContain('Previous page');
    expect(hidden(first)).toEqual([]);
    await window.action({ ...TestWindow.formFields(first, 'choose'), bulk: 'disable', selected: ['pg-01', 'pg-03'], moveTo: '20' });
    expect(window.renderParameters).toEqual({ view: ['list'], filter: ['uniqueId sw "pg-"'], offset: ['20'], selected: ['pg-01', 'pg-03'] });

    const batches = window.gateway.batches();
    const second = await window.render();
    expect(window.gateway.batches()).toBe(batches + 1); // carrying the selection asks nothing more
    expect(textOf(second)).toContain('2 selected on other pages. Clear the selection');
    expect(hidden(second)).toEqual(['pg-01', 'pg-03']);
    expect(ticked(second)).toEqual([]);
    expect(second).toContain('value="0" class="portlet-form-button svc-pager-button">Previous page</button>');
    const clear = /href="([^"]+)">Clear the selection</.exec(second)![1].replace(/&#38;/g, '&');
    const query = new URL(clear, 'http://portal').searchParams;
    expect([query.get('w1.p.offset'), query.getAll('w1.p.selected')]).toEqual(['20', []]);

    // pg-21 ticked here, back to the first page: its rows pre-ticked, pg-21 counted as elsewhere.
    await window.action({ ...TestWindow.formFields(second, 'choose'), selected: [...hidden(second), 'pg-21'], moveTo: '0' });
    const back = await window.render();
    expect(ticked(back)).toEqual(['pg-01', 'pg-03']);
    expect(hidden(back)).toEqual(['pg-21']);
    expect(textOf(back)).toContain('1 selected on other pages.');

    // pg-03 unticked, Continue: the whole selection on the one confirmation page, from one batch.
    await window.action({ ...TestWindow.formFields(back, 'choose'), bulk: 'disable', selected: [...hidden(back), 'pg-01'] });
    expect(window.renderParameters).toMatchObject({ view: ['bulk'], bulk: ['disable'], selected: ['pg-21', 'pg-01'] });
    const before = window.gateway.batches();
    const confirm = await window.render();
    expect(window.gateway.batches()).toBe(before + 1);
    expect(textOf(confirm)).toContain('Disable these 2 subjects? This ends their sessions; they cannot log in until enabled again. pg-21 pg-01');
    // Cancel goes back to the page it came from with the selection, to change it.
    const cancel = new URL(/href="([^"]+)">Cancel</.exec(confirm)![1].replace(/&#38;/g, '&'), 'http://portal').searchParams;
    expect([cancel.get('w1.p.view'), cancel.getAll('w1.p.selected')]).toEqual(['list', ['pg-21', 'pg-01']]);
    const targets = [...confirm.matchAll(/<input type="hidden" name="target" value="([^"]+)">/g)].map((m) => m[1]);
    await window.action({ ...TestWindow.formFields(confirm, 'bulk'), target: targets });
    expect(textOf(await window.render())).toContain('2 subjects were disabled: pg-21, pg-01.');
    expect(window.renderParameters.selected).toBeUndefined();
    for (const id of ids) expect((await svc.core.core.subjects.read('employees', id)).attributes.disabled === 'true').toBe(id === 'pg-01' || id === 'pg-21');

    // Beyond BULK_LIMIT, or too long to carry in a URL: refused in words, the first ones that fit kept, on the same page.
    const many = Array.from({ length: 101 }, (_v, i) => `someone-${i}`);
    await window.action({ ...TestWindow.formFields(back, 'choose'), selected: many, moveTo: '20' });
    expect(textOf(await window.render())).toContain('At most 100 subjects can be selected at once; 101 were. The first 100 are still selected');
    expect(window.renderParameters.selected).toEqual(many.slice(0, 100));
    expect(window.renderParameters.offset).toBeUndefined();
    const long = Array.from({ length: 40 }, (_v, i) => `${String(i).padStart(3, '0')}${'x'.repeat(197)}`);
    await window.action({ ...TestWindow.formFields(back, 'choose'), bulk: 'delete', selected: long });
    expect(textOf(await window.render())).toContain('The selected user names are too long to carry between pages together; 40 were selected. The first 30 are still selected');
    expect(window.renderParameters.selected).toEqual(long.slice(0, 30));
    for (const id of ids) await svc.core.core.subjects.delete('employees', id);
  });

  test('preferences: the validator refuses a page size outside 5–100, in words beside the field; a good one is stored', async () => {
    const window = admin();
    window.mode = PortletMode.EDIT;
    expect(await window.render()).toContain('for="svc_w1_f_pageSize">Page size');
    await window.action({ op: 'preferences', pageSize: '3', columns: ['mail'], context: '' });
    expect(await window.render()).toContain('id="svc_w1_f_pageSize_error">Page size must be a whole number from 5 to 100.');
    await window.action({ op: 'preferences', pageSize: '5', columns: ['mail'], context: '' });
    expect(window.mode).toBe(PortletMode.VIEW);
    window.mode = PortletMode.EDIT;
    expect(await window.render()).toMatch(/id="svc_w1_f_pageSize" name="pageSize"[^>]*value="5"/);
    // kept per (user, page, window) in the portal's SQLite file: another window of alice's starts from the defaults
    const other = admin();
    other.mode = PortletMode.EDIT;
    expect(await other.render()).toMatch(/id="svc_w1_f_pageSize" name="pageSize"[^>]*value="5"/);
  });
});
