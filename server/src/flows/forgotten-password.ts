import { AccessDenied, InvalidRequest, NotFound } from '../../../common/src/errors';
import type { Core } from '../core';
import { checkPasswordPolicy } from '../passwords/password-policy';
import type { Session } from '../sessions/session';
import { valuesOf } from '../subjects/subject';
import { normaliseAnswer } from '../subjects/subject-service';
import { DecoyQuestions } from './decoy-questions';
import { SlidingWindow } from './sliding-window';
import { perCore } from '../per-core';

/** What a session remembers of the flow: one subject, and whether its answers matched. */
interface FlowState {
  contextId: string;
  uniqueId: string;
  answered: boolean;
}

export interface FlowSession {
  session: Session;
  cookieValue?: string;
}

/** The session to continue with: a flow binds state to it, so a stateless session becomes stored. */
export interface FlowOutcome<T> {
  result: T;
  cookieValue?: string;
}

const STATE_KEY = 'forgottenPassword';

/**
 * The forgotten-password flow of SPEC section 7, in one ANON or INTERNAL session bound to one
 * subject: questions, then answers, then one new password. Unknown and disabled subjects get decoy
 * questions and the same number of hash computations, so existence does not leak; wrong answers
 * have their own counter per subject.
 */
export class ForgottenPassword {
  private readonly decoys: DecoyQuestions;
  private readonly wrongAnswers: SlidingWindow;

  constructor(private readonly core: Core) {
    this.decoys = new DecoyQuestions(core.config.server.dataDir);
    this.wrongAnswers = new SlidingWindow({
      limit: () => core.config.global['lockout.answerFailures'],
      windowSeconds: () => core.config.global['lockout.window'],
      now: core.now,
    });
  }

  private settings(contextId: string) {
    const { config } = this.core.subjects.context(contextId);
    if (!config.forgottenPassword.enabled) throw new NotFound(`context ${contextId} has no forgotten-password flow`);
    return config;
  }

  private state(flow: FlowSession): FlowState | undefined {
    return flow.session.data?.[STATE_KEY] as FlowState | undefined;
  }

  /** The subject's questions when it can use the flow, else undefined (and the caller shows decoys). */
  private async usable(contextId: string, uniqueId: string): Promise<{ questions: string[]; answers: string[] } | undefined> {
    const config = this.settings(contextId);
    const subject = await this.core.subjects.context(contextId).store.get(contextId, uniqueId);
    if (!subject || subject.attributes.disabled === 'true') return undefined;
    const questions = valuesOf(subject.attributes[config.forgottenPassword.questionsAttribute]);
    const answers = valuesOf(subject.attributes[config.forgottenPassword.answersAttribute]);
    return questions.length && questions.length === answers.length ? { questions, answers } : undefined;
  }

  private assertAnonymous(flow: FlowSession): void {
    if (flow.session.type !== 'ANON' && flow.session.type !== 'INTERNAL') {
      throw new AccessDenied(this.core.config.global['authz.denyStatus'], false, 'the forgotten-password flow is for visitors who are not logged in');
    }
  }

  /** Phase 1: the questions; binds the session to the subject. */
  async questions(flow: FlowSession, contextId: string, uniqueId: string): Promise<FlowOutcome<string[]>> {
    this.assertAnonymous(flow);
    const found = await this.usable(contextId, uniqueId);
    const questions = found?.questions ?? this.decoys.for(contextId, uniqueId);
    const state: FlowState = { contextId, uniqueId, answered: false };
    const issued = flow.cookieValue ? await this.core.sessions.attachData(flow.cookieValue, flow.session, { ...flow.session.data, [STATE_KEY]: state }) : undefined;
    return { result: questions, cookieValue: issued?.cookieValue };
  }

  /** Phase 2: all answers must match, compared after normalising case and spaces. */
  async answer(flow: FlowSession, contextId: string, uniqueId: string, given: string[]): Promise<FlowOutcome<void>> {
    this.assertAnonymous(flow);
    const state = this.state(flow);
    if (!state || state.contextId !== contextId || state.uniqueId !== uniqueId) {
      throw new InvalidRequest('ask for the questions of this subject first, in this session');
    }
    const key = `${contextId}/${uniqueId.toLowerCase()}`;
    this.wrongAnswers.assertAllowed(key, 'too many wrong answers; try again later');
    const found = await this.usable(contextId, uniqueId);
    const expected = found?.answers ?? [];
    // Always one verification per given answer, whether or not the subject exists.
    const verdicts = await Promise.all(
      given.map((answer, i) => (expected[i] ? this.core.hasher.verify(expected[i], normaliseAnswer(answer)) : this.core.hasher.verifyDummy(normaliseAnswer(answer)))),
    );
    const ok = found !== undefined && given.length === expected.length && verdicts.every((v) => v.ok);
    this.core.audit.record({ event: 'login', outcome: ok ? 'success' : 'failure', reason: ok ? 'forgotten_password_answers' : 'forgotten_password_wrong_answers', principal: key, session: flow.session.handle });
    if (!ok) {
      this.wrongAnswers.record(key);
      throw new InvalidRequest('the answers do not match', { errors: [{ path: 'answers', message: 'do not match' }] });
    }
    await this.core.sessions.attachData(flow.cookieValue!, flow.session, { ...flow.session.data, [STATE_KEY]: { ...state, answered: true } });
    return { result: undefined };
  }

  /** Phase 3: a new password, once, after the answers matched for this subject in this session. */
  async reset(flow: FlowSession, contextId: string, uniqueId: string, password: string): Promise<void> {
    this.assertAnonymous(flow);
    const state = this.state(flow);
    if (!state?.answered || state.contextId !== contextId || state.uniqueId !== uniqueId) {
      throw new InvalidRequest('answer the questions of this subject first, in this session');
    }
    const subject = await this.core.subjects.read(contextId, uniqueId);
    checkPasswordPolicy(password, { userId: uniqueId, attributes: subject.attributes });
    const hash = await this.core.hasher.hash(password);
    const { [STATE_KEY]: _done, ...rest } = flow.session.data ?? {};
    await this.core.sessions.attachData(flow.cookieValue!, flow.session, rest);
    await this.core.subjects.setPasswordHash(contextId, uniqueId, hash);
    await this.core.endSubjectSessions(contextId, uniqueId, 'password');
    this.core.audit.record({ event: 'subject_write', outcome: 'success', reason: 'password_reset', principal: `${contextId}/${uniqueId}`, session: flow.session.handle });
  }
}

/**
 * The one flow of a core: the REST routes and the pages share it, so they share its wrong-answer
 * counter (two instances would each allow their own three tries).
 */
export const forgottenPasswordOf = perCore((core) => new ForgottenPassword(core));
