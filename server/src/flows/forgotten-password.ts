import { AccessDenied, InvalidRequest, NotFound, WeakPassword } from '../../../common/src/errors';
import { principalName } from '../../../common/src/principal-name';
import { findLoginSubject } from '../authenticators/subject-lookup';
import type { Core } from '../core';
import { recordRefusedHash } from '../passwords/hash-cost';
import { checkPasswordPolicy } from '../passwords/password-policy';
import type { Session } from '../sessions/session';
import { fold, valuesOf, type StoredSubject } from '../subjects/subject';
import { normaliseAnswer } from '../subjects/subject-service';
import { takeSlot, type AttemptLimiter } from './attempt-limiter';
import { DecoyQuestions } from './decoy-questions';
import type { ResetMarkers } from './reset-markers';
import { partiesOf } from '../audit';

/**
 * What the visitor's signed cookie remembers of the flow: the name as given (folded), and after
 * matching answers the value of the subject's reset marker. Nothing about the subject itself: the
 * visitor can read the cookie, and it must not tell whether the name exists.
 */
interface FlowState {
  contextId: string;
  name: string;
  reset?: string;
}

export interface FlowSession {
  session: Session;
  cookieValue?: string;
  /** The visitor's address (after trustProxy): flow starts are limited per address. */
  peer: string;
}

/** A result, and the cookie value to continue with when the flow's state in it changed. */
export interface FlowOutcome<T> {
  result: T;
  cookieValue?: string;
}

/** What a name designates for the flow: the key of its counter, and the subject when it can use the flow. */
interface Target {
  key: string;
  usable?: { subject: StoredSubject; questions: string[]; answers: string[] };
}

const STATE_KEY = 'forgottenPassword';

/**
 * The forgotten-password flow of SPEC section 7, in one ANON or INTERNAL session bound to one name:
 * questions, then answers, then one new password.
 *
 * The name is resolved as login resolves one (uniqueId or any authenid value, case-insensitively).
 * Unknown and disabled subjects, and subjects without questions, get decoy questions derived from the
 * folded name, the same counter keyed by that name, and the same number of hash computations, so no
 * pair of requests tells a real subject from a missing one.
 *
 * Nothing is stored per request (SPEC section 4, "Memory"): the flow's state lives in the session's
 * signed cookie; the server keeps only the wrong-answer counter per subject, a reset marker per subject
 * whose answers matched, and a count of flow starts per address, each bounded.
 */
/** What the flow uses of the core: its limiters, markers and decoy key beside the sessions, the subjects, hashing and audit. */
export type ForgottenPasswordDeps = Pick<Core, 'config' | 'attemptLimiter' | 'resetMarkers' | 'decoyKey' | 'subjects' | 'sessions' | 'hasher' | 'audit' | 'endSubjectSessions'>;

export class ForgottenPassword {
  private readonly decoys: DecoyQuestions;
  /** Wrong answers per subject (SPEC section 4: 3 per 15 min). */
  readonly wrongAnswers: AttemptLimiter;
  /** Flow starts per address. */
  readonly starts: AttemptLimiter;
  private readonly markers: ResetMarkers;

  constructor(private readonly core: ForgottenPasswordDeps) {
    this.decoys = new DecoyQuestions(() => core.decoyKey());
    const settings = () => core.config.settings;
    this.wrongAnswers = core.attemptLimiter('answers', () => ({ limit: settings().lockout.answerFailures, window: settings().lockout.windowSeconds }));
    this.starts = core.attemptLimiter('starts', () => ({ limit: settings().flowLimit.startsPerAddress, window: settings().flowLimit.windowSeconds }));
    this.markers = core.resetMarkers();
  }

  private settings(contextId: string) {
    const { config } = this.core.subjects.context(contextId);
    // SPEC 16: a context whose `methods` leave the questions out recovers by link only.
    if (!config.forgottenPassword.enabled || !config.forgottenPassword.methods.includes('questions')) throw new NotFound(`context ${contextId} has no forgotten-password flow`);
    return config;
  }

  private state(flow: FlowSession): FlowState | undefined {
    return flow.session.data?.[STATE_KEY] as FlowState | undefined;
  }

  /** The flow's state when it is bound to this context and name. */
  private boundState(flow: FlowSession, contextId: string, name: string): FlowState | undefined {
    const state = this.state(flow);
    return state && state.contextId === contextId && state.name === fold(name) ? state : undefined;
  }

  /** The subject a name designates, and whether it can use the flow (enabled, with as many answers as questions). */
  private async target(contextId: string, name: string): Promise<Target> {
    const config = this.settings(contextId);
    const { found } = await findLoginSubject(this.core.subjects, contextId, name);
    if (found) {
      const { subject } = found;
      const questions = valuesOf(subject.attributes[config.forgottenPassword.questionsAttribute]);
      const answers = valuesOf(subject.attributes[config.forgottenPassword.answersAttribute]);
      if (questions.length && questions.length === answers.length) return { key: principalName({ contextId, uniqueId: subject.uniqueId }), usable: { subject, questions, answers } };
    }
    // A name that designates no usable subject is counted where a subject of that (folded) id would be.
    return { key: principalName({ contextId, uniqueId: fold(name) }) };
  }

  private assertAnonymous(flow: FlowSession): void {
    if (flow.session.type !== 'ANON' && flow.session.type !== 'INTERNAL') {
      throw new AccessDenied(this.core.config.settings.denyStatus, false, 'the forgotten-password flow is for visitors who are not logged in');
    }
  }

  /** The flow's new state in the session's cookie: a new cookie value the caller must set. */
  private async keep(flow: FlowSession, state: FlowState | undefined): Promise<string | undefined> {
    if (!flow.cookieValue) return undefined;
    const { [STATE_KEY]: _old, ...rest } = flow.session.data ?? {};
    const data = state ? { ...rest, [STATE_KEY]: state } : rest;
    return (await this.core.sessions.attachData(flow.cookieValue, flow.session, data)).cookieValue;
  }

  /**
   * Phase 1: the questions; binds the session to the name. Binding a new name is a flow start, limited
   * per address; asking again for the bound name (a page shown again) is not.
   */
  async questions(flow: FlowSession, contextId: string, name: string): Promise<FlowOutcome<string[]>> {
    this.assertAnonymous(flow);
    this.settings(contextId);
    const bound = this.boundState(flow, contextId, name);
    if (!bound) await takeSlot(this.starts, flow.peer, 'too many forgotten-password requests from this address; try again later');
    const target = await this.target(contextId, name);
    const questions = target.usable?.questions ?? this.decoys.for(contextId, fold(name));
    const cookieValue = bound ? undefined : await this.keep(flow, { contextId, name: fold(name) });
    return { result: questions, cookieValue };
  }

  /**
   * Phase 2: all answers must match, compared after normalising case and spaces. The attempt takes its
   * slot in the subject's counter before any answer is verified; a right answer gives it back.
   */
  async answer(flow: FlowSession, contextId: string, name: string, given: string[]): Promise<FlowOutcome<void>> {
    this.assertAnonymous(flow);
    const state = this.boundState(flow, contextId, name);
    if (!state) throw new InvalidRequest('ask for the questions of this subject first, in this session');
    const target = await this.target(contextId, name);
    const slot = await takeSlot(this.wrongAnswers, target.key, 'too many wrong answers; try again later');
    const expected = target.usable?.answers ?? [];
    let ok = false;
    try {
      // Always one verification per given answer, whether or not the subject can use the flow.
      const verdicts = await Promise.all(
        given.map((answer, i) => (expected[i] ? this.core.hasher.verify(expected[i], normaliseAnswer(answer)) : this.core.hasher.verifyDummy(normaliseAnswer(answer)))),
      );
      for (const verdict of verdicts) recordRefusedHash(this.core.audit, target.key, verdict);
      ok = target.usable !== undefined && given.length === expected.length && verdicts.every((v) => v.ok);
    } catch (error) {
      // Nothing was verified (the hash pool is full): not a wrong answer.
      await this.wrongAnswers.release(target.key, slot);
      throw error;
    }
    this.core.audit.record({ ...partiesOf(flow.session, flow.peer), event: 'login', outcome: ok ? 'success' : 'failure', reason: ok ? 'forgotten_password_answers' : 'forgotten_password_wrong_answers', principal: target.key, session: flow.session.handle });
    if (!ok) throw new InvalidRequest('the answers do not match', { errors: [{ path: 'answers', message: 'do not match' }] });
    await this.wrongAnswers.release(target.key, slot);
    const reset = await this.markers.issue(target.key, this.core.config.settings.session.idleSeconds);
    return { result: undefined, cookieValue: await this.keep(flow, { ...state, reset }) };
  }

  /**
   * Phase 3: a new password, once, after the answers matched for this subject in this session. The
   * subject's reset marker is consumed before the password is written, so a copied or replayed cookie
   * cannot reset twice. A password the store's own policy refuses (an LDAP directory's history) writes
   * nothing, so the marker is put back and the visitor may choose another.
   */
  async reset(flow: FlowSession, contextId: string, name: string, password: string): Promise<FlowOutcome<void>> {
    this.assertAnonymous(flow);
    const state = this.boundState(flow, contextId, name);
    const target = state?.reset ? await this.target(contextId, name) : undefined;
    if (!state?.reset || !target?.usable) throw new InvalidRequest('answer the questions of this subject first, in this session');
    const { subject } = target.usable;
    checkPasswordPolicy(password, { userId: subject.uniqueId, attributes: subject.attributes });
    const expires = await this.markers.consume(target.key, state.reset);
    if (expires === undefined) throw new InvalidRequest('answer the questions of this subject first, in this session');
    try {
      await this.core.subjects.setPassword(contextId, subject.uniqueId, password);
    } catch (error) {
      if (error instanceof WeakPassword) await this.markers.restore(target.key, state.reset, expires);
      throw error;
    }
    await this.core.endSubjectSessions(contextId, subject.uniqueId, 'password');
    this.core.audit.record({ ...partiesOf(flow.session, flow.peer), event: 'subject_write', outcome: 'success', reason: 'password_reset', principal: target.key, session: flow.session.handle });
    return { result: undefined, cookieValue: await this.keep(flow, undefined) };
  }
}

