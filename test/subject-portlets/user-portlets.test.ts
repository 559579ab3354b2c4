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
    expect(markup).toContain('<th class="portlet-table-header" scope="col">E-mail address</th>');
    expect(markup).toContain('aria-label="Edit bob"');
    expect(markup).toContain('aria-label="Delete bob"');
    expect(markup).toContain('>Create subject</a>');
    expect(window.gateway.batches()).toBe(1);

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
