/**
 * Self-Service (SPEC 10.4): the logged-in user's own subject. VIEW shows it (the definition's
 * attributes, write-only ones never) with "Edit profile" and "Change password" when the check
 * allows them; EDIT chooses which attributes to show (a preference); HELP says what it does.
 */
import { principalName } from '../../../../common/src/principal-name';
import { PortletMode, type ActionRequest, type ActionResponse, type PortletRequest, type RenderRequest, type RenderResponse } from '../../api';
import { displayValue, labelOf, readableAttributes, type ContextDefinition } from '../shared/definition';
import { setFlash, takeFlash, type Flash } from '../shared/flash';
import { attributeField, postedAttributes } from '../shared/forms';
import { keepWritten, takeWritten } from '../shared/written';
import { actionForm, button, checkboxes, details, field, html, link, message, type Html } from '../shared/markup';
import { svcOf, svcUserOf, type Svc } from '../shared/svc';
import { attributeRefill, FormRefusal, OP, param, SvcPortlet } from '../shared/svc-portlet';

type View = 'profile' | 'edit' | 'password';

const PASSWORD_LABELS = { oldPassword: 'Current password', newPassword: 'New password', newPasswordRepeat: 'Repeat the new password' };

function viewOf(request: PortletRequest): View {
  const view = request.getParameter('view');
  return view === 'edit' || view === 'password' ? view : 'profile';
}

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
    preferences: {
      run: (request: ActionRequest, response: ActionResponse) => this.savePreferences(request, response),
      words: () => ({ doing: 'change these preferences' }),
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
      const written = takeWritten(request, user.contextId, user.uniqueId);
      const [definition, read, [mayUpdate, mayChangePassword]] = await Promise.all([
        svc.context(user.contextId),
        written ?? svc.read(user.contextId, user.uniqueId),
        svc.evaluate([
          { action: 'UPDATE', resource: { type: 'subject', id: subjectId } },
          { action: 'UPDATE', resource: { type: 'subject.password', id: subjectId } },
        ]),
      ]);
      const top = flash ? message(flash.kind, flash.message) : html``;
      if (view === 'edit' && mayUpdate) return html`${top}${this.editForm(response, definition, read.subject.attributes, read.etag, flash)}`;
      if (view === 'password' && mayChangePassword) return html`${top}${this.passwordForm(response, flash)}`;
      const shown = this.shownAttributes(request, definition);
      const rows: Array<[string, string]> = [['User name', read.subject.uniqueId], ...shown.map((n): [string, string] => [labelOf(n), displayValue(read.subject.attributes[n])])];
      const controls = [
        mayUpdate ? link(this.viewURL(response, 'edit'), 'Edit profile') : html``,
        mayChangePassword ? link(this.viewURL(response, 'password'), 'Change password') : html``,
      ];
      return html`${top}${details(rows)}<p class="svc-controls">${controls}</p>`;
    });
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

  private editForm(response: RenderResponse, definition: ContextDefinition, attributes: Record<string, string | string[]>, etag: string | undefined, flash: Flash | undefined): Html {
    const ns = response.getNamespace();
    const writable = selfWritable(definition);
    const values = { ...attributes, ...(flash?.values ?? {}) };
    const fields = readableAttributes(definition).map((name) =>
      attributeField(ns, definition, name, { values, errors: flash?.fields, readOnly: !writable.includes(name) }),
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

  private user(request: PortletRequest): { contextId: string; uniqueId: string; svc: Svc } {
    const user = svcUserOf(request);
    if (!user) throw new FormRefusal('Log in first.');
    return { ...user, svc: svcOf(request) };
  }

  private async save(request: ActionRequest, response: ActionResponse): Promise<void> {
    const { contextId, uniqueId, svc } = this.user(request);
    const definition = await svc.context(contextId);
    const attributes = postedAttributes(request, definition, selfWritable(definition), true);
    const written = await svc.update(contextId, uniqueId, attributes, param(request, 'etag') || undefined);
    keepWritten(request, { contextId, ...written });
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
