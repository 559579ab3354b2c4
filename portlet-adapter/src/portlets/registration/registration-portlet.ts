/**
 * Registration (SPEC 10.4): a visitor opens an account in a context open to registration. The form
 * is the context's registration attributes, typed by its definition; the password policy's reasons
 * appear next to the password. Sent twice, the second is refused by the core (409) and said so.
 */
import type { ActionRequest, RenderRequest, RenderResponse } from '../../api';
import { labelOf, type ContextDefinition } from '../shared/definition';
import { setFlash, takeFlash } from '../shared/flash';
import { attributeField, postedAttributes } from '../shared/forms';
import { actionForm, button, field, html, link, message, type Html } from '../shared/markup';
import { svcOf } from '../shared/svc';
import { attributeRefill, FormRefusal, OP, param, SvcPortlet } from '../shared/svc-portlet';

const REPEAT = 'passwordRepeat';
/** SPEC 16: after a registration in a context that verifies addresses. */
export const CHECK_MAIL = 'Check your mail: we sent a link to the address you gave. Follow it within 24 hours to confirm it, then log in. Nothing after a few minutes? Look in your spam folder.';

export class RegistrationPortlet extends SvcPortlet {
  protected readonly help = [
    'Registration opens an account for you. Fill in the form; fields marked "required" must be filled in.',
    'The password needs 8 to 256 characters and must not be a common password, your user name or your e-mail address.',
    'Once registered, log in to the portal with your user name (or e-mail address) and your password. Where addresses are confirmed, follow the link we mail you first.',
  ];

  protected readonly actions = {
    register: {
      run: (request: ActionRequest) => this.register(request),
      words: () => ({
        doing: 'register here',
        conflict: 'That user name or e-mail address is already registered. If you have just registered, your account is ready: log in with it.',
        fieldOf: { password: 'password' },
      }),
      // Only the form's own fields come back after a refusal (never whatever else was posted).
      refill: async (request: ActionRequest) => attributeRefill((await svcOf(request).context(this.contextId())).registrationAttributes ?? []),
    },
  };

  /** The context registrants join: the `context` init parameter (the demo: `customers`). */
  private contextId(): string {
    return this.getInitParameter('context') ?? 'customers';
  }

  protected override async doView(request: RenderRequest, response: RenderResponse): Promise<void> {
    const flash = takeFlash(request);
    await this.show(response, 'register here', async () => {
      const svc = svcOf(request);
      const [definition, [mayCreate]] = await Promise.all([svc.context(this.contextId()), svc.evaluate([{ action: 'CREATE', resource: { type: 'subjects', id: this.contextId() } }])]);
      const top = flash ? message(flash.kind, flash.message) : html``;
      if (flash?.kind === 'success' && flash.message === CHECK_MAIL) return top;
      if (flash?.kind === 'success') return html`${top}<p class="portlet-font">${link(response.encodeURL('login'), 'Log in')}</p>`;
      if (!definition.registration || !mayCreate) return html`${top}${message('info', 'Registration is not open to you here.')}`;
      return html`${top}${this.form(response, definition, flash?.values ?? {}, flash?.fields ?? {})}`;
    });
  }

  private form(response: RenderResponse, definition: ContextDefinition, values: Record<string, string>, errors: Record<string, string>): Html {
    const ns = response.getNamespace();
    const names = definition.registrationAttributes ?? [];
    const fields = names.flatMap((name) => {
      const one = attributeField(ns, definition, name, { values, errors, creating: true });
      if (name !== definition.passwordAttribute) return [one];
      return [one, field(ns, { name: REPEAT, label: `Repeat the ${labelOf(name).toLowerCase()}`, kind: 'password', required: true, error: errors[REPEAT], autocomplete: 'new-password' })];
    });
    return actionForm(response.createActionURL().toString(), { [OP]: 'register' }, html`${fields}${button('Register')}`, 'Registration');
  }

  private async register(request: ActionRequest): Promise<void> {
    const svc = svcOf(request);
    const definition = await svc.context(this.contextId());
    const names = definition.registrationAttributes ?? [];
    const password = definition.passwordAttribute;
    if (password && names.includes(password) && param(request, password, false) !== param(request, REPEAT, false)) {
      throw new FormRefusal('The two passwords differ; type the same password twice.', { [REPEAT]: 'The two passwords differ.' });
    }
    const uniqueId = param(request, 'uniqueId');
    if (!uniqueId) throw new FormRefusal('Choose a user name.', { uniqueId: 'User name is required.' });
    const created = await svc.register(this.contextId(), uniqueId, postedAttributes(request, definition, names) as Record<string, string | string[]>);
    if (!('uniqueId' in created)) {
      // SPEC 16: the same words whether the address was new or already registered.
      setFlash(request, { kind: 'success', message: CHECK_MAIL });
      return;
    }
    setFlash(request, { kind: 'success', message: `Your account "${created.uniqueId}" is ready. Log in with your user name or e-mail address and your password.` });
  }
}
