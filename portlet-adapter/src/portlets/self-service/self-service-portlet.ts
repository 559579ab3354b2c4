/**
 * Self-Service (SPEC 10.4): the logged-in user's own subject. VIEW shows it (the definition's
 * attributes, write-only ones never) with "Edit profile" and "Change password" when the check
 * allows them; EDIT chooses which attributes to show (a preference); HELP says what it does.
 *
 * "Two-step sign-in" (SPEC 15): its state (off, or on with the recovery codes left), turning it on
 * (the password, then the secret as a QR code drawn here as SVG and as text, then a first code
 * confirms it and the recovery codes are shown this once) and off (the password and a code). The
 * enrollment's secret waits for its confirmation in this window's portlet session (a user's: kept in
 * the portal's memory, never a cookie), and goes when it is confirmed; the recovery codes are taken
 * by the one render that shows them. A control the check denies only for want of a step-up is a link
 * to the portal's step-up form.
 */
import { principalName } from '../../../../common/src/principal-name';
import { PortletMode, PortletSession, type ActionRequest, type ActionResponse, type PortletRequest, type RenderRequest, type RenderResponse } from '../../api';
import { displayValue, labelOf, readableAttributes, type ContextDefinition } from '../shared/definition';
import { setFlash, takeFlash, type Flash } from '../shared/flash';
import { attributeField, postedAttributes } from '../shared/forms';
import { actionForm, button, checkboxes, details, field, flashMessage, html, link, message, stepUpLink, type Html } from '../shared/markup';
import { qrSvg } from '../shared/qr';
import { svcOf, svcUserOf, type OtpEnrollment, type OtpState, type Svc } from '../shared/svc';
import type { Decision } from '../../gateway-client';
import { attributeRefill, FormRefusal, OP, param, SvcPortlet } from '../shared/svc-portlet';

type View = 'profile' | 'edit' | 'password' | 'mail' | 'otp-start' | 'otp-confirm' | 'otp-codes' | 'otp-remove';
const VIEWS: readonly View[] = ['profile', 'edit', 'password', 'mail', 'otp-start', 'otp-confirm', 'otp-codes', 'otp-remove'];
const MAIL_LABELS = { mail: 'New e-mail address', password: 'Your password' };
/** The attribute SPEC 16's address change writes. */
const MAIL_ATTRIBUTE = 'mail';

const PASSWORD_LABELS = { oldPassword: 'Current password', newPassword: 'New password', newPasswordRepeat: 'Repeat the new password' };
const OTP_LABELS = { password: 'Your password', code: 'Code' };
/** This window's pending enrollment (secret and URI) until its first code confirms it. */
const ENROLLMENT = 'svc.otp.enrollment';
/** The recovery codes of a confirmation, for the one render after it. */
const RECOVERY_CODES = 'svc.otp.recoveryCodes';

function viewOf(request: PortletRequest): View {
  const view = request.getParameter('view');
  return VIEWS.find((v) => v === view) ?? 'profile';
}

/** The secret in groups of four, as authenticator apps ask to type it. */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/** The attributes a user may write on their own subject: `readWrite` ones (admin-only ones are shown read-only). */
function selfWritable(definition: ContextDefinition): string[] {
  return Object.entries(definition.attributes)
    .filter(([, d]) => d.mutability === 'readWrite')
    .map(([name]) => name);
}

export class SelfServicePortlet extends SvcPortlet {
  protected readonly help = [
    'Self-Service shows your own account as svc holds it.',
    '"Edit profile" changes the attributes you may change yourself; attributes only an administrator may change are shown but cannot be edited. "Change password" asks for your current password and a new one (8 to 256 characters, not a common one).',
    '"Two-step sign-in" adds a second factor: after your password, svc asks for the 6-digit code your authenticator app shows. Turning it on asks for your password, then shows a QR code (and the same secret as text) for the app, and a first code from the app confirms it. You then get ten recovery codes, shown once: each signs you in once in place of a code if you lose the app. Turning it off asks for your password and a code.',
    '"Change e-mail address" asks for the new address and your password: we mail a link there (and tell your current address), and your address changes only when the link is followed, within 24 hours. Until then the window says which change is waiting.',
    'In the preferences (Edit mode of this window) you choose which attributes to show.',
  ];

  protected readonly actions = {
    save: {
      run: (request: ActionRequest, response: ActionResponse) => this.save(request, response),
      words: () => ({
        doing: 'change this profile',
        stale: 'Your profile was changed since this form was shown (was the form sent twice?); nothing was saved. The form shows the current profile.',
      }),
      retry: () => ({ view: 'edit' }),
      refill: async (request: ActionRequest) => {
        const { contextId, svc } = this.user(request);
        return attributeRefill(readableAttributes(await svc.context(contextId)));
      },
    },
    password: {
      run: (request: ActionRequest, response: ActionResponse) => this.changePassword(request, response),
      words: () => ({
        doing: 'change this password',
        invalid: 'The current password is not correct. If you sent this form twice, the first one already changed your password.',
        fieldOf: { password: 'newPassword' },
        labels: PASSWORD_LABELS,
      }),
      retry: () => ({ view: 'password' }),
    },
    mail: {
      run: (request: ActionRequest, response: ActionResponse) => this.changeMail(request, response),
      words: () => ({
        doing: 'change this e-mail address',
        invalid: 'The password is not correct, or the address is not one: check both and try again.',
        fieldOf: { password: 'password', mail: 'mail' },
        labels: MAIL_LABELS,
      }),
      retry: () => ({ view: 'mail' }),
      refill: () => ({ mail: 254 }),
    },
    preferences: {
      run: (request: ActionRequest, response: ActionResponse) => this.savePreferences(request, response),
      words: () => ({ doing: 'change these preferences' }),
    },
    otpEnroll: {
      run: (request: ActionRequest, response: ActionResponse) => this.otpEnroll(request, response),
      words: () => ({ doing: 'turn on two-step sign-in', conflict: 'Two-step sign-in is already on.', labels: OTP_LABELS }),
      retry: () => ({ view: 'otp-start' }),
    },
    otpConfirm: {
      run: (request: ActionRequest, response: ActionResponse) => this.otpConfirm(request, response),
      words: () => ({ doing: 'turn on two-step sign-in', conflict: 'There is nothing to confirm (was the form sent twice?). Start again.', labels: OTP_LABELS }),
      retry: () => ({ view: 'otp-confirm' }),
    },
    otpRemove: {
      run: (request: ActionRequest, response: ActionResponse) => this.otpRemove(request, response),
      words: () => ({ doing: 'turn off two-step sign-in', labels: OTP_LABELS }),
      retry: () => ({ view: 'otp-remove' }),
    },
  };

  protected override async doView(request: RenderRequest, response: RenderResponse): Promise<void> {
    const flash = takeFlash(request);
    const user = svcUserOf(request);
    if (!user) return this.show(response, 'see a profile', async () => html`<p class="portlet-font">${link(response.encodeURL('login'), 'Log in')} to see your profile.</p>`);
    const view = viewOf(request);
    await this.show(response, 'see this profile', async () => {
      const svc = svcOf(request);
      const subjectId = principalName(user);
      const [definition, read, [update, changePassword, otp, changeMail]] = await Promise.all([
        svc.context(user.contextId),
        // The subject, whether it has a second factor and a pending address change, in one request (a
        // page's budget: issue 28). After a save too: the PUT's answer holds the subject but neither
        // state, and asking for them would cost this same one request.
        svc.read(user.contextId, user.uniqueId, { otp: true, mail: true }),
        svc.decide([
          { action: 'UPDATE', resource: { type: 'subject', id: subjectId } },
          { action: 'UPDATE', resource: { type: 'subject.password', id: subjectId } },
          { action: 'UPDATE', resource: { type: 'subject.otp', id: subjectId } },
          { action: 'UPDATE', resource: { type: 'subject.mail', id: subjectId } },
        ]),
      ]);
      // SPEC 16: the address changes through a link mailed to the new one (where svc mails: the answer said whether it may say).
      const mailPending = 'mailPending' in read ? read.mailPending : undefined;
      const mailChange = mailPending !== undefined ? changeMail : 'deny';
      // A policy that hides the factor's state: no section.
      const otpState = read.otp;
      const top = flashMessage(response, flash);
      // Where the address changes by a mailed link, the profile's form shows it read-only (a changed one would be refused).
      const byLink = mailChange === 'allow' ? MAIL_ATTRIBUTE : undefined;
      if (view === 'edit' && update === 'allow') return html`${top}${this.editForm(response, definition, read.subject.attributes, read.etag, flash, byLink)}`;
      if (view === 'password' && changePassword === 'allow') return html`${top}${this.passwordForm(response, flash)}`;
      if (view === 'mail' && mailChange === 'allow') return html`${top}${this.mailForm(response, flash)}`;
      if (otp === 'allow' && otpState !== undefined && view.startsWith('otp-')) {
        const otpView = await this.otpView(request, response, view, otpState, flash);
        if (otpView !== undefined) return html`${top}${otpView}`;
      }
      const shown = this.shownAttributes(request, definition);
      const rows: Array<[string, string]> = [['User name', read.subject.uniqueId], ...shown.map((n): [string, string] => [labelOf(n), displayValue(read.subject.attributes[n])])];
      const controls = [this.control(response, update, 'edit', 'Edit profile'), this.control(response, changePassword, 'password', 'Change password'), this.control(response, mailChange, 'mail', 'Change e-mail address')];
      const pending = mailPending ? message('info', `Your new address ${mailPending.mail} waits for confirmation: follow the link we sent there before ${readableTime(mailPending.expires)}. Until then your address stays as shown.`) : html``;
      const twoStep = otpState === undefined || otp === 'deny' ? html`` : this.otpSection(response, otpState, otp);
      return html`${top}${pending}${details(rows)}<p class="svc-controls">${controls}</p>${twoStep}`;
    });
  }

  /** A control by its decision: a link to its view, a step-up link, or nothing. */
  private control(response: RenderResponse, decision: Decision, view: View, text: string): Html {
    if (decision === 'allow') return link(this.viewURL(response, view), text);
    return decision === 'step_up' ? stepUpLink(response, text) : html``;
  }

  /** The "Two-step sign-in" part of the profile: its state and the control that changes it. */
  private otpSection(response: RenderResponse, state: OtpState, decision: Decision): Html {
    const on = state.state === 'confirmed';
    const text = on
      ? html`Two-step sign-in is <strong>on</strong>: after your password, svc asks for a code from your authenticator app. ${state.recoveryCodesLeft} of 10 recovery codes are left.`
      : html`Two-step sign-in is <strong>off</strong>: your password alone signs you in.`;
    const control = on ? this.control(response, decision, 'otp-remove', 'Turn off two-step sign-in') : this.control(response, decision, 'otp-start', 'Turn on two-step sign-in');
    return html`<h3 class="portlet-section-header">Two-step sign-in</h3><p class="portlet-font">${text}</p><p class="svc-controls">${control}</p>`;
  }

  /** The views of turning two-step sign-in on and off; undefined: the view does not fit the state (the profile is shown). */
  private async otpView(request: RenderRequest, response: RenderResponse, view: View, state: OtpState, flash: Flash | undefined): Promise<Html | undefined> {
    const ns = response.getNamespace();
    const errors = flash?.fields ?? {};
    const cancel = link(this.viewURL(response, 'profile'), 'Cancel');
    const session = request.getPortletSession(false);
    if (view === 'otp-codes') {
      const codes = session?.getAttribute(RECOVERY_CODES, PortletSession.PORTLET_SCOPE) as string[] | undefined;
      session?.removeAttribute(RECOVERY_CODES, PortletSession.PORTLET_SCOPE);
      if (!codes) return undefined;
      return html`<h3 class="portlet-section-header">Your recovery codes</h3>
<p class="portlet-font">Write these down or print them, and keep them where you keep important papers. Each one signs you in once in place of a code, if you lose your authenticator app. <strong>They are shown only now.</strong></p>
<ol class="portlet-font svc-codes">${codes.map((code) => html`<li><code>${code.replace(/(.{4})(?=.)/g, '$1-')}</code></li>`)}</ol>
<p class="svc-controls">${link(this.viewURL(response, 'profile'), 'I have kept them: back to my profile')}</p>`;
    }
    if (view === 'otp-start' && state.state !== 'confirmed') {
      const fields = field(ns, { name: 'password', label: OTP_LABELS.password, kind: 'password', required: true, error: errors.password, autocomplete: 'current-password' });
      const intro = html`<p class="portlet-font">You need an authenticator app on your phone (for example FreeOTP, Aegis or Google Authenticator). First confirm it is you.</p>`;
      return html`<h3 class="portlet-section-header">Turn on two-step sign-in</h3>${intro}${actionForm(response.createActionURL().toString(), { [OP]: 'otpEnroll' }, html`${fields}${button('Continue')} ${cancel}`, 'Turn on two-step sign-in')}`;
    }
    if (view === 'otp-confirm' && state.state === 'pending') {
      const enrollment = session?.getAttribute(ENROLLMENT, PortletSession.PORTLET_SCOPE) as OtpEnrollment | undefined;
      if (!enrollment) return undefined;
      const qr = await qrSvg(enrollment.uri, 'QR code of your two-step sign-in secret, for your authenticator app');
      const code = field(ns, { name: 'code', label: OTP_LABELS.code, required: true, error: errors.code, autocomplete: 'one-time-code', hint: 'The 6 digits the app shows now for svc.' });
      return html`<h3 class="portlet-section-header">Turn on two-step sign-in</h3>
<ol class="portlet-font svc-steps"><li>In your authenticator app, add an account and scan this QR code.<div class="svc-qr-box">${qr}</div></li>
<li>If you cannot scan it, type this secret into the app instead (time-based, 6 digits, every 30 seconds): <code class="svc-secret" id="${ns}secret">${grouped(enrollment.secret)}</code></li>
<li>Enter the code the app shows, to confirm.</li></ol>
${actionForm(response.createActionURL().toString(), { [OP]: 'otpConfirm' }, html`${code}${button('Turn on')} ${cancel}`, 'Confirm two-step sign-in')}`;
    }
    if (view === 'otp-remove' && state.state === 'confirmed') {
      const fields = [
        field(ns, { name: 'password', label: OTP_LABELS.password, kind: 'password', required: true, error: errors.password, autocomplete: 'current-password' }),
        field(ns, { name: 'code', label: OTP_LABELS.code, required: true, error: errors.code, autocomplete: 'one-time-code', hint: 'A code of your authenticator app, or a recovery code.' }),
      ];
      const intro = html`<p class="portlet-font">Without two-step sign-in your password alone signs you in. Confirm with your password and a code.</p>`;
      return html`<h3 class="portlet-section-header">Turn off two-step sign-in</h3>${intro}${actionForm(response.createActionURL().toString(), { [OP]: 'otpRemove' }, html`${fields}${button('Turn off')} ${cancel}`, 'Turn off two-step sign-in')}`;
    }
    return undefined;
  }

  private viewURL(response: RenderResponse, view: View): string {
    const url = response.createRenderURL();
    url.setParameter('view', view);
    return url.toString();
  }

  /** The preference `attributes`, or every readable attribute when it names none. */
  private shownAttributes(request: PortletRequest, definition: ContextDefinition): string[] {
    const readable = readableAttributes(definition);
    const chosen = (request.getPreferences().getValues('attributes', []) ?? []).filter((n): n is string => typeof n === 'string' && readable.includes(n));
    return chosen.length ? chosen : readable;
  }

  /** `mailByLink`: the address attribute, when it changes through "Change e-mail address" (SPEC 16) rather than here. */
  private editForm(response: RenderResponse, definition: ContextDefinition, attributes: Record<string, string | string[]>, etag: string | undefined, flash: Flash | undefined, mailByLink?: string): Html {
    const ns = response.getNamespace();
    const writable = selfWritable(definition).filter((name) => name !== mailByLink);
    const values = { ...attributes, ...(flash?.values ?? {}) };
    const fields = readableAttributes(definition).map((name) =>
      attributeField(ns, definition, name, {
        values,
        errors: flash?.fields,
        readOnly: !writable.includes(name),
        hint: name === mailByLink ? 'Change it with "Change e-mail address": we mail a link to the new address.' : undefined,
      }),
    );
    const cancel = link(this.viewURL(response, 'profile'), 'Cancel');
    return actionForm(response.createActionURL().toString(), { [OP]: 'save', etag }, html`${fields}${button('Save profile')} ${cancel}`, 'Edit profile');
  }

  private passwordForm(response: RenderResponse, flash: Flash | undefined): Html {
    const ns = response.getNamespace();
    const errors = flash?.fields ?? {};
    const fields = [
      field(ns, { name: 'oldPassword', label: PASSWORD_LABELS.oldPassword, kind: 'password', required: true, error: errors.oldPassword, autocomplete: 'current-password' }),
      field(ns, { name: 'newPassword', label: PASSWORD_LABELS.newPassword, kind: 'password', required: true, error: errors.newPassword, autocomplete: 'new-password', hint: '8 to 256 characters, not a common password.' }),
      field(ns, { name: 'newPasswordRepeat', label: PASSWORD_LABELS.newPasswordRepeat, kind: 'password', required: true, error: errors.newPasswordRepeat, autocomplete: 'new-password' }),
    ];
    const cancel = link(this.viewURL(response, 'profile'), 'Cancel');
    return actionForm(response.createActionURL().toString(), { [OP]: 'password' }, html`${fields}${button('Change password')} ${cancel}`, 'Change password');
  }

  /** SPEC 16: a new address and the password; the address changes only when the link mailed there is followed. */
  private mailForm(response: RenderResponse, flash: Flash | undefined): Html {
    const ns = response.getNamespace();
    const errors = flash?.fields ?? {};
    const fields = [
      field(ns, { name: 'mail', label: MAIL_LABELS.mail, kind: 'email', required: true, value: flash?.values?.mail, error: errors.mail, autocomplete: 'email', hint: 'We mail a link there; your address changes when you follow it (within 24 hours).' }),
      field(ns, { name: 'password', label: MAIL_LABELS.password, kind: 'password', required: true, error: errors.password, autocomplete: 'current-password' }),
    ];
    const cancel = link(this.viewURL(response, 'profile'), 'Cancel');
    return actionForm(response.createActionURL().toString(), { [OP]: 'mail' }, html`${fields}${button('Send the link')} ${cancel}`, 'Change e-mail address');
  }

  private async changeMail(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, uniqueId, svc } = this.user(request);
    const mail = param(request, 'mail');
    if (!mail) throw new FormRefusal('Enter the new e-mail address.', { mail: 'New e-mail address is required.' });
    await svc.changeMail(contextId, uniqueId, mail, param(request, 'password', false));
    setFlash(request, { kind: 'success', message: `Check your mail at ${mail}: follow the link we sent there to confirm the new address. We told your current address too.` });
    response.setRenderParameter('view', 'profile');
  }

  private user(request: PortletRequest): { contextId: string; uniqueId: string; svc: Svc } {
    const user = svcUserOf(request);
    if (!user) throw new FormRefusal('Log in first.');
    return { ...user, svc: svcOf(request) };
  }

  private async save(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, uniqueId, svc } = this.user(request);
    const definition = await svc.context(contextId);
    const attributes = postedAttributes(request, definition, selfWritable(definition), true);
    await svc.update(contextId, uniqueId, attributes, param(request, 'etag') || undefined);
    setFlash(request, { kind: 'success', message: 'Your profile was saved.' });
    response.setRenderParameter('view', 'profile');
  }

  private async changePassword(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, uniqueId, svc } = this.user(request);
    const newPassword = param(request, 'newPassword', false);
    if (newPassword !== param(request, 'newPasswordRepeat', false)) {
      throw new FormRefusal('The two new passwords differ; type the same new password twice.', { newPasswordRepeat: 'The two new passwords differ.' });
    }
    await svc.changePassword(contextId, uniqueId, param(request, 'oldPassword', false), newPassword);
    setFlash(request, { kind: 'success', message: 'Your password was changed. Use the new one from now on.' });
    response.setRenderParameter('view', 'profile');
  }

  private async otpEnroll(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, uniqueId, svc } = this.user(request);
    const password = param(request, 'password', false);
    if (password === '') throw new FormRefusal('Enter your password.', { password: 'Enter your password.' });
    const enrollment = await svc.otpEnroll(contextId, uniqueId, password);
    request.getPortletSession(true)!.setAttribute(ENROLLMENT, enrollment, PortletSession.PORTLET_SCOPE);
    response.setRenderParameter('view', 'otp-confirm');
  }

  private async otpConfirm(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, uniqueId, svc } = this.user(request);
    const code = param(request, 'code');
    if (code === '') throw new FormRefusal('Enter the code your app shows.', { code: 'Enter the code your app shows.' });
    const recoveryCodes = await svc.otpConfirm(contextId, uniqueId, code);
    const session = request.getPortletSession(true)!;
    session.removeAttribute(ENROLLMENT, PortletSession.PORTLET_SCOPE);
    session.setAttribute(RECOVERY_CODES, recoveryCodes, PortletSession.PORTLET_SCOPE);
    setFlash(request, { kind: 'success', message: 'Two-step sign-in is on. From now on svc asks for a code after your password.' });
    response.setRenderParameter('view', 'otp-codes');
  }

  private async otpRemove(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, uniqueId, svc } = this.user(request);
    const password = param(request, 'password', false);
    const code = param(request, 'code');
    if (password === '' || code === '') throw new FormRefusal('Enter your password and a code.', { ...(password === '' ? { password: 'Enter your password.' } : {}), ...(code === '' ? { code: 'Enter a code.' } : {}) });
    await svc.otpRemove(contextId, uniqueId, { password, code });
    setFlash(request, { kind: 'success', message: 'Two-step sign-in is off: your password alone signs you in.' });
    response.setRenderParameter('view', 'profile');
  }

  protected override async doEdit(request: RenderRequest, response: RenderResponse): Promise<void> {
    const flash = takeFlash(request);
    const user = svcUserOf(request);
    await this.show(response, 'change these preferences', async () => {
      const definition = user ? await svcOf(request).context(user.contextId) : undefined;
      const readable = definition ? readableAttributes(definition) : [];
      const chosen = new Set((request.getPreferences().getValues('attributes', []) ?? []).filter((n): n is string => typeof n === 'string'));
      const options = readable.map((name) => ({ value: name, label: labelOf(name), checked: chosen.size === 0 || chosen.has(name) }));
      const top = flash ? message(flash.kind, flash.message) : html``;
      const body = html`${checkboxes(response.getNamespace(), 'attributes', 'Attributes to show', options)}${button('Save preferences')}`;
      return html`${top}${actionForm(response.createActionURL().toString(), { [OP]: 'preferences' }, body, 'Self-Service preferences')}`;
    });
  }

  private async savePreferences(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, svc } = this.user(request);
    const readable = readableAttributes(await svc.context(contextId));
    const chosen = (request.getParameterValues('attributes') ?? []).filter((name) => readable.includes(name));
    const preferences = request.getPreferences();
    preferences.setValues('attributes', chosen);
    await preferences.store();
    setFlash(request, { kind: 'success', message: 'Your preferences were saved.' });
    response.setPortletMode(PortletMode.VIEW);
  }
}

/** `2026-11-27T10:15:00.000Z` → `2026-11-27 10:15 UTC`. */
function readableTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
