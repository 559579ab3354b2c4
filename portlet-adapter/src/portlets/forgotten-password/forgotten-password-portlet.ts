/**
 * Forgotten Password (SPEC 10.4): a visitor's three phases, id → questions → new password, over the
 * core's flow (SPEC section 7). The core binds the flow to the visitor's ANON core session, which
 * the gateway keeps per visitor handle; the core gives decoy questions for unknown names and counts
 * wrong answers. The window keeps only which phase it shows, in its PORTLET_SCOPE session.
 * Success sends the visitor to the portal login.
 */
import { PortletSession, type ActionRequest, type ActionResponse, type PortletRequest, type RenderRequest, type RenderResponse } from '../../api';
import { takeFlash, type Flash } from '../shared/flash';
import { actionForm, button, field, html, message, type Html } from '../shared/markup';
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

export class ForgottenPasswordPortlet extends SvcPortlet {
  protected readonly help = [
    'Forgotten Password sets a new password when you cannot log in.',
    'Enter your user name or e-mail address, answer your security questions, then choose a new password (8 to 256 characters, not a common one). After three wrong answers the questions stay closed for a while.',
    'When it is done, log in with the new password.',
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
  };

  private contextId(): string {
    return this.getInitParameter('context') ?? 'employees';
  }

  protected override async doView(request: RenderRequest, response: RenderResponse): Promise<void> {
    const flash = takeFlash(request);
    const state = stateOf(request);
    await this.show(response, 'reset a password here', async () => {
      const top = flash ? message(flash.kind, flash.message) : html``;
      if (request.getUserPrincipal()) return html`${message('info', 'You are logged in; change your password in Self-Service.')}`;
      if (!state) return html`${top}${this.nameForm(response, flash)}`;
      const restart = actionForm(response.createActionURL().toString(), { [OP]: 'restart' }, button('Start again'), 'Start again');
      if (state.phase === 'questions') return html`${top}${this.questionsForm(response, state, flash)}${restart}`;
      return html`${top}${this.passwordForm(response, state, flash)}${restart}`;
    });
  }

  private nameForm(response: RenderResponse, flash: Flash | undefined): Html {
    const name = field(response.getNamespace(), {
      name: 'name',
      label: 'User name or e-mail address',
      required: true,
      value: flash?.values?.name,
      error: flash?.fields?.name,
      autocomplete: 'username',
    });
    return actionForm(response.createActionURL().toString(), { [OP]: 'start' }, html`${name}${button('Continue')}`, 'Forgotten password');
  }

  private questionsForm(response: RenderResponse, state: FlowState, flash: Flash | undefined): Html {
    const ns = response.getNamespace();
    const fields = state.questions.map((question, i) => field(ns, { name: `answer${i}`, label: question, required: true, error: flash?.fields?.[`answer${i}`], autocomplete: 'off' }));
    return actionForm(response.createActionURL().toString(), { [OP]: 'answer', name: state.name }, html`${fields}${button('Check the answers')}`, 'Security questions');
  }

  private passwordForm(response: RenderResponse, state: FlowState, flash: Flash | undefined): Html {
    const ns = response.getNamespace();
    const errors = flash?.fields ?? {};
    const fields = [
      field(ns, { name: 'newPassword', label: 'New password', kind: 'password', required: true, error: errors.newPassword, autocomplete: 'new-password', hint: '8 to 256 characters, not a common password.' }),
      field(ns, { name: 'newPasswordRepeat', label: 'Repeat the new password', kind: 'password', required: true, error: errors.newPasswordRepeat, autocomplete: 'new-password' }),
    ];
    return actionForm(response.createActionURL().toString(), { [OP]: 'reset', name: state.name }, html`${fields}${button('Set the new password')}`, 'New password');
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
