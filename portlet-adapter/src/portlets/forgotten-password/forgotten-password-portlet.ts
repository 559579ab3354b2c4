/**
 * Forgotten Password (SPEC 10.4, 16): a link by mail, or the questions — a visitor's three phases,
 * id → questions → new password, over the core's flow (SPEC section 7). A link asked for here points
 * back at this window (`returnTo`, its render URL with an empty `token` parameter the core fills), so
 * the person chooses the new password where they asked; the link's GET only shows the form. The core binds the flow to the visitor's ANON core session, which
 * the gateway keeps per visitor handle; the core gives decoy questions for unknown names and counts
 * wrong answers. The window keeps only which phase it shows, in its PORTLET_SCOPE session.
 * Success sends the visitor to the portal login.
 */
import { PortletSession, type ActionRequest, type ActionResponse, type PortletRequest, type RenderRequest, type RenderResponse } from '../../api';
import { setFlash, takeFlash, type Flash } from '../shared/flash';
import type { ContextDefinition } from '../shared/definition';
import { actionForm, button, field, html, link, message, type Html } from '../shared/markup';
import { svcOf } from '../shared/svc';
import { FormRefusal, OP, param, SvcPortlet, VALUE_LENGTH } from '../shared/svc-portlet';

const STATE = 'svc.forgot';

interface FlowState {
  phase: 'questions' | 'password';
  name: string;
  questions: string[];
}

function stateOf(request: PortletRequest): FlowState | undefined {
  return request.getPortletSession(false)?.getAttribute(STATE, PortletSession.PORTLET_SCOPE) as FlowState | undefined;
}

function setState(request: PortletRequest, state: FlowState | undefined): void {
  const session = request.getPortletSession(state !== undefined);
  if (state) session?.setAttribute(STATE, state, PortletSession.PORTLET_SCOPE);
  else session?.removeAttribute(STATE, PortletSession.PORTLET_SCOPE);
}

const STALE = 'This password reset was already used or has run out. If you still need a new password, start again.';
const LINK_STALE = 'This link was already used, has run out, or your password changed since. Ask for a new link below.';
/** The core's words (SPEC 16), whatever the name; how long and how often the link works. */
const LINK_SENT = 'If the name is known, a link is on its way. Follow it within 15 minutes, on any device; it works once. Nothing arrived? Look in your spam folder.';
/** The render parameter a link's token arrives in. */
const TOKEN = 'token';

export class ForgottenPasswordPortlet extends SvcPortlet {
  protected readonly help = [
    'Forgotten Password sets a new password when you cannot log in.',
    'Enter your user name or e-mail address, then either ask for a link by e-mail (it works for 15 minutes, once) or answer your security questions; then choose a new password (8 to 256 characters, not a common one). After three wrong answers the questions stay closed for a while.',
    'When it is done, every session of your account has ended: log in with the new password.',
  ];

  protected readonly actions = {
    start: {
      run: (request: ActionRequest) => this.start(request),
      words: () => ({ doing: 'reset a password here', fieldOf: { subjectId: 'name' }, labels: { name: 'User name or e-mail address' } }),
      refill: () => ({ name: VALUE_LENGTH }),
    },
    answer: {
      run: (request: ActionRequest) => this.answer(request),
      words: () => ({ doing: 'reset a password here', invalid: 'The answers do not match. Check them and try again.' }),
    },
    reset: {
      run: (request: ActionRequest, response: ActionResponse) => this.reset(request, response),
      words: () => ({ doing: 'reset a password here', invalid: STALE, fieldOf: { password: 'newPassword' }, labels: { newPassword: 'New password' } }),
    },
    restart: {
      run: async (request: ActionRequest) => setState(request, undefined),
      words: () => ({ doing: 'start again' }),
    },
    link: {
      run: (request: ActionRequest) => this.link(request),
      words: () => ({ doing: 'ask for a link here', fieldOf: { name: 'name' }, labels: { name: 'User name or e-mail address' } }),
      refill: () => ({ name: VALUE_LENGTH }),
    },
    useLink: {
      run: (request: ActionRequest, response: ActionResponse) => this.useLink(request, response),
      words: () => ({ doing: 'set a new password here', invalid: LINK_STALE, fieldOf: { password: 'newPassword' }, labels: { newPassword: 'New password' } }),
      retry: (request: ActionRequest) => ({ [TOKEN]: param(request, TOKEN) }),
    },
  };

  /** The contexts a link is asked in (init parameter `linkContexts`, space-separated; default the window's context). */
  private linkContexts(): string[] {
    return (this.getInitParameter('linkContexts') ?? this.contextId()).split(/\s+/).filter(Boolean);
  }

  /** The ways this window offers: the questions of its context, a link where any of its link contexts mails. */
  private async ways(request: PortletRequest): Promise<{ questions: boolean; link: string[] }> {
    const svc = svcOf(request);
    const definitions = await Promise.all(this.linkContexts().map((id) => svc.context(id).catch(() => undefined)));
    const own = this.linkContexts().includes(this.contextId()) ? definitions[this.linkContexts().indexOf(this.contextId())] : await svc.context(this.contextId()).catch(() => undefined);
    const methods = (d: ContextDefinition | undefined) => (d?.forgottenPassword ? (d.forgottenPasswordMethods ?? ['questions']) : []);
    return { questions: methods(own).includes('questions'), link: definitions.filter((d): d is ContextDefinition => methods(d).includes('email')).map((d) => d.id) };
  }

  private contextId(): string {
    return this.getInitParameter('context') ?? 'employees';
  }

  protected override async doView(request: RenderRequest, response: RenderResponse): Promise<void> {
    const flash = takeFlash(request);
    const state = stateOf(request);
    await this.show(response, 'reset a password here', async () => {
      const top = flash ? message(flash.kind, flash.message) : html``;
      if (request.getUserPrincipal()) return html`${message('info', 'You are logged in; change your password in Self-Service.')}`;
      const token = request.getParameter(TOKEN);
      if (token) return html`${top}${this.linkPasswordForm(response, token, flash)}`;
      if (!state) return html`${top}${this.nameForm(response, flash, await this.ways(request))}`;
      const restart = actionForm(response.createActionURL().toString(), { [OP]: 'restart' }, button('Start again'), 'Start again');
      if (state.phase === 'questions') return html`${top}${this.questionsForm(response, state, flash)}${restart}`;
      return html`${top}${this.passwordForm(response, state, flash)}${restart}`;
    });
  }

  private nameForm(response: RenderResponse, flash: Flash | undefined, ways: { questions: boolean; link: string[] }): Html {
    const name = field(response.getNamespace(), {
      name: 'name',
      label: 'User name or e-mail address',
      required: true,
      value: flash?.values?.name,
      error: flash?.fields?.name,
      autocomplete: 'username',
    });
    if (!ways.link.length) return actionForm(response.createActionURL().toString(), { [OP]: 'start' }, html`${name}${button('Continue')}`, 'Forgotten password');
    // Both ways in one form: the button says which (the first, a link, is what Enter does).
    const buttons = [button('Send me a link by e-mail', { name: OP, value: 'link' }), ...(ways.questions ? [button('Answer my security questions', { name: OP, value: 'start' })] : [])];
    const back = response.createRenderURL();
    back.setParameter(TOKEN, '');
    return actionForm(response.createActionURL().toString(), { returnTo: back.toString() }, html`${name}<div class="svc-buttons">${buttons}</div>`, 'Forgotten password');
  }

  /** The new password for a mailed link (its token in a hidden field; nothing is used until it is posted). */
  private linkPasswordForm(response: RenderResponse, token: string, flash: Flash | undefined): Html {
    const fields = newPasswordFields(response, flash);
    const another = link(response.createRenderURL().toString(), 'Ask for a new link');
    return html`${actionForm(response.createActionURL().toString(), { [OP]: 'useLink', [TOKEN]: token }, html`${fields}${button('Set the new password')}`, 'New password')}<p class="portlet-font">${another}</p>`;
  }

  private questionsForm(response: RenderResponse, state: FlowState, flash: Flash | undefined): Html {
    const ns = response.getNamespace();
    const fields = state.questions.map((question, i) => field(ns, { name: `answer${i}`, label: question, required: true, error: flash?.fields?.[`answer${i}`], autocomplete: 'off' }));
    return actionForm(response.createActionURL().toString(), { [OP]: 'answer', name: state.name }, html`${fields}${button('Check the answers')}`, 'Security questions');
  }

  private passwordForm(response: RenderResponse, state: FlowState, flash: Flash | undefined): Html {
    const fields = newPasswordFields(response, flash);
    return actionForm(response.createActionURL().toString(), { [OP]: 'reset', name: state.name }, html`${fields}${button('Set the new password')}`, 'New password');
  }

  /** A link to the name's address, in each context that mails one, pointing back at this window. */
  private async link(request: ActionRequest): Promise<void> {
    const name = param(request, 'name');
    if (!name) throw new FormRefusal('Enter your user name or e-mail address.', { name: 'User name or e-mail address is required.' });
    const ways = await this.ways(request);
    const svc = svcOf(request);
    for (const contextId of ways.link) await svc.requestResetLink(contextId, name, this.returnTo(request));
    setState(request, undefined);
    setFlash(request, { kind: 'success', message: LINK_SENT });
  }

  /** The `returnTo` the name form carried (its render URL with an empty `token`), absolute at the portal's public origin. */
  private returnTo(request: ActionRequest): string {
    const origin = new URL(`${request.getScheme()}://${request.getServerName()}:${request.getServerPort()}`).origin;
    const given = param(request, 'returnTo');
    return new URL(given.startsWith('/') && !given.startsWith('//') ? given : request.getContextPath() || '/', origin).toString();
  }

  private async useLink(request: ActionRequest, response: ActionResponse): Promise<void> {
    const token = param(request, TOKEN);
    const password = param(request, 'newPassword', false);
    if (password !== param(request, 'newPasswordRepeat', false)) {
      throw new FormRefusal('The two new passwords differ; type the same new password twice.', { newPasswordRepeat: 'The two new passwords differ.' });
    }
    await svcOf(request).useResetLink(token, password);
    setState(request, undefined);
    response.sendRedirect(response.encodeURL('login'));
  }

  private async start(request: ActionRequest): Promise<void> {
    const name = param(request, 'name');
    if (!name) throw new FormRefusal('Enter your user name or e-mail address.', { name: 'User name or e-mail address is required.' });
    const questions = await svcOf(request).forgotQuestions(this.contextId(), name);
    setState(request, { phase: 'questions', name, questions });
  }

  /** The name comes from the form, not the window's state: a form sent again after a reset meets the core's refusal. */
  private async answer(request: ActionRequest): Promise<void> {
    const name = param(request, 'name');
    const state = stateOf(request);
    const count = state?.name === name ? state.questions.length : 0;
    const answers = Array.from({ length: count }, (_v, i) => param(request, `answer${i}`));
    await svcOf(request).forgotAnswers(this.contextId(), name, answers);
    setState(request, { phase: 'password', name, questions: [] });
  }

  private async reset(request: ActionRequest, response: ActionResponse): Promise<void> {
    const name = param(request, 'name');
    const password = param(request, 'newPassword', false);
    if (password !== param(request, 'newPasswordRepeat', false)) {
      throw new FormRefusal('The two new passwords differ; type the same new password twice.', { newPasswordRepeat: 'The two new passwords differ.' });
    }
    await svcOf(request).forgotReset(this.contextId(), name, password);
    setState(request, undefined);
    response.sendRedirect(response.encodeURL('login'));
  }
}

/** The new password and its repetition, with the errors a refused form brought back: both ways of resetting ask for them. */
function newPasswordFields(response: RenderResponse, flash: Flash | undefined): Html[] {
  const ns = response.getNamespace();
  const errors = flash?.fields ?? {};
  return [
    field(ns, { name: 'newPassword', label: 'New password', kind: 'password', required: true, error: errors.newPassword, autocomplete: 'new-password', hint: '8 to 256 characters, not a common password.' }),
    field(ns, { name: 'newPasswordRepeat', label: 'Repeat the new password', kind: 'password', required: true, error: errors.newPasswordRepeat, autocomplete: 'new-password' }),
  ];
}
