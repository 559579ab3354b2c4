/**
 * Registration and Forgotten Password as a visitor would use them, over a real gateway and core:
 * forms built from the context's definition, errors in words next to their field, a second
 * submission refused by the core and explained, the core's state checked after each step.
 */
import { TEST_CREDENTIALS } from '../helpers/core-server';
import { coreLogin, startSvc, textOf, windowOf, type Svc } from './setup';

let svc: Svc;
beforeAll(async () => {
  svc = await startSvc();
});
afterAll(() => svc.stop());

describe('Registration', () => {
  const open = () => windowOf(svc, 'registration', null);

  test('the form is the context\'s registration attributes, typed by the definition, each with a label', async () => {
    const window = open();
    const markup = await window.render();
    for (const name of ['uniqueId', 'mail', 'givenName', 'familyName', 'password', 'passwordRepeat']) {
      expect(markup).toContain(`id="svc_w1_f_${name}" name="${name}"`);
      expect(markup).toContain(`<label class="portlet-form-label portlet-form-field-label" for="svc_w1_f_${name}">`);
    }
    expect(markup).toContain('<input type="email" id="svc_w1_f_mail"');
    expect(markup).toContain('<input type="password" id="svc_w1_f_password"');
    expect(markup).not.toContain('f_roles'); // not a registration attribute
    expect(window.gateway.batches()).toBe(1);
  });

  test('a weak password is explained next to the field; nothing is created; typed values come back, the password does not', async () => {
    const window = open();
    await window.action({ op: 'register', uniqueId: 'weakling', mail: 'weak@example.org', givenName: 'W', familyName: 'L', password: 'password', passwordRepeat: 'password' });
    const markup = await window.render();
    expect(markup).toMatch(/<p class="portlet-msg-error" id="svc_w1_f_password_error">Password [^<]*(too common|at least 8)/);
    expect(markup).toContain('aria-invalid="true"');
    expect(markup).toContain('value="weak@example.org"');
    expect(markup).not.toContain('value="password"');
    expect(await coreLogin(svc, 'weakling', 'password')).toBe(false);
  });

  test('two different passwords are refused before svc is asked', async () => {
    const window = open();
    await window.action({ op: 'register', uniqueId: 'typo', mail: 'typo@example.org', password: 'Long-enough-1', passwordRepeat: 'Long-enough-2' });
    expect(textOf(await window.render())).toContain('The two passwords differ');
    expect(window.gateway.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  test('registering works and the account logs in; the same form sent again is refused by the core and said so', async () => {
    const window = open();
    const form = { op: 'register', uniqueId: 'dora', mail: 'dora@example.org', givenName: 'Dora', familyName: 'D', password: 'Dora-pass-4321', passwordRepeat: 'Dora-pass-4321' };
    await window.action(form);
    const done = textOf(await window.render());
    expect(done).toContain('Your account "dora" is ready');
    expect(done).toContain('Log in');
    expect(await coreLogin(svc, 'dora@example.org', 'Dora-pass-4321')).toBe(true);

    await window.action(form); // Back, then submit again
    const again = textOf(await window.render());
    expect(again).toContain('already registered. If you have just registered, your account is ready');
    expect(await coreLogin(svc, 'dora', 'Dora-pass-4321')).toBe(true);
  });

  test('HELP says what the portlet does', async () => {
    const window = open();
    window.mode = (await import('../../portlet-adapter/src/api')).PortletMode.HELP;
    expect(textOf(await window.render())).toContain('Registration opens an account for you');
  });
});

describe('Forgotten Password', () => {
  const open = () => windowOf(svc, 'forgotten-password', null);
  const [first, second] = TEST_CREDENTIALS.answers.bob;

  test('id → questions → new password; success sends the visitor to the portal login; bob logs in with the new password', async () => {
    const window = open();
    expect(await window.render()).toContain('for="svc_w1_f_name">User name or e-mail address');
    await window.action({ op: 'start', name: 'bob' });
    const questions = await window.render();
    expect(questions).toContain('id="svc_w1_f_answer0"');
    expect(questions).toContain('id="svc_w1_f_answer1"');

    await window.action({ op: 'answer', name: 'bob', answer0: 'wrong', answer1: 'wrong' });
    expect(textOf(await window.render())).toContain('The answers do not match');

    await window.action({ op: 'answer', name: 'bob', answer0: first, answer1: second });
    expect(await window.render()).toContain('id="svc_w1_f_newPassword"');

    await window.action({ op: 'reset', name: 'bob', newPassword: 'password', newPasswordRepeat: 'password' });
    expect(await window.render()).toMatch(/id="svc_w1_f_newPassword_error">New password [^<]*/);

    const done = await window.action({ op: 'reset', name: 'bob', newPassword: 'Bob-reset-5678', newPasswordRepeat: 'Bob-reset-5678' });
    expect(done.redirect).toBe('/portal/login');
    expect(await coreLogin(svc, 'bob', 'Bob-reset-5678')).toBe(true);

    // Back, then the same form again: the core refuses a second reset, and the window says why
    await window.action({ op: 'reset', name: 'bob', newPassword: 'Bob-again-9999', newPasswordRepeat: 'Bob-again-9999' });
    expect(textOf(await window.render())).toContain('This password reset was already used or has run out');
    expect(await coreLogin(svc, 'bob', 'Bob-again-9999')).toBe(false);
  });

  test('an unknown name gets questions too (the core\'s decoys): nothing tells who exists', async () => {
    const window = open();
    await window.action({ op: 'start', name: 'nobody-here' });
    expect(await window.render()).toContain('id="svc_w1_f_answer0"');
  });
});
