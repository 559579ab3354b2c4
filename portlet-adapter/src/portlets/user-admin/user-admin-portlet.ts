/**
 * User Admin (SPEC 10.4), for users whose check allows SEARCH in the context: free-text search and
 * a SCIM filter, paged results sorted by their headers with each subject's status (from the page's
 * one SEARCH, include=status), view with the subject's recent events, create, edit, delete (after a
 * confirmation step), lifting a lockout (on locked rows only), bulk disable, enable and delete (one
 * confirmation page) and Export CSV (a link through the portal's REST pass-through). Every button
 * and checkbox of a render comes from ONE batch of AuthZEN evaluations. A form sent twice
 * meets the core's refusal (409 for a create, 412 for an edit, 404 for a delete) and says so.
 */
import { principalName } from '../../../../common/src/principal-name';
import { SvcClientError } from '../../gateway-client';
import { PortletMode, ValidatorException, type ActionRequest, type ActionResponse, type PortletRequest, type RenderRequest, type RenderResponse } from '../../api';
import { labelOf, readableAttributes, type ContextDefinition } from '../shared/definition';
import { describeFailure, type Failure } from '../shared/failure';
import { setFlash, takeFlash, type Flash } from '../shared/flash';
import { postedAttributes } from '../shared/forms';
import { actionForm, button, checkboxes, field, flashMessage, html, message, type Html } from '../shared/markup';
import { csvExportPath, secondFactorPageOf, svcOf, svcUserOf, type AccessQuestion, type OtpState, type Svc } from '../shared/svc';
import { attributeRefill, FormRefusal, ID_LENGTH, OP, param, SvcPortlet, VALUE_LENGTH, type PortletAction } from '../shared/svc-portlet';
import { PAGE_SIZE, settingsOf } from './preferences';
import { BULK_LIMIT, hiddenFieldsOf, offsetOf, parametersOf, selectionOf, stateOf, urlTo, type AdminState } from './state';
import { BULK_WORDS, bulkConfirmation, createForm, deleteConfirmation, editForm, eventsPage, listControls, liveResults, otpRemovalConfirmation, otpRemovalNeedsOwnFactor, REPEAT, resultTable, searchForm, subjectDetails, type RowRights, type SubjectView } from './views';

/**
 * The questions of one subject's controls, in the order RowRights reads them: READ, UPDATE and DELETE
 * of the subject, then lifting its lockout unless `lift` is false (the list shows "Lift lockout" on
 * locked rows only, and does not ask about the others: a page of 20 unlocked subjects asks 61
 * questions rather than 81).
 */
function rowQuestions(contextId: string, uniqueId: string, lift = true): AccessQuestion[] {
  const id = principalName({ contextId, uniqueId });
  return [
    { action: 'READ', resource: { type: 'subject', id } },
    { action: 'UPDATE', resource: { type: 'subject', id } },
    { action: 'DELETE', resource: { type: 'subject', id } },
    ...(lift ? [{ action: 'UPDATE', resource: { type: 'subject.lockout', id } } satisfies AccessQuestion] : []),
  ];
}

/** The rights of one subject's controls from the answers to its rowQuestions, which start at `from`. */
function rowRights(answers: boolean[], from: number, lift = true): RowRights {
  const [read, update, remove, mayLift] = answers.slice(from, from + (lift ? 4 : 3));
  return { read, update, delete: remove, lift: lift && mayLift };
}

/** Runs `work` on every item, at most `width` at a time; each outcome is undefined (done) or what it threw. */
async function inTurn<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<unknown[]> {
  const outcomes: unknown[] = new Array(items.length).fill(undefined);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await work(items[i]).catch((error: unknown) => {
        outcomes[i] = error ?? new Error('failed');
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return outcomes;
}

/** A search the core refused for what was typed (a bad filter): shown beside the field, not instead of the window. */
function refusedSearch(error: unknown): { refused: Failure } {
  if (!(error instanceof SvcClientError) || error.status !== 400) throw error;
  return { refused: describeFailure(error, { doing: 'search subjects here' }) };
}

export class UserAdminPortlet extends SvcPortlet {
  protected readonly help = [
    'User Admin manages the subjects of a context: search by words or with a SCIM filter (for example mail ew "@example.com"), sort by a column by choosing its header, then view, edit, delete or lift a lockout. The Status column says whether a subject is active, disabled or locked after failed logins. Only the buttons you are allowed to use are shown.',
    'To disable, enable or delete several subjects at once, tick their rows, choose the action and press Continue: one confirmation page lists them. The ticks stay when you go to the previous or next page, so you can select rows on several pages (up to 100); the list says how many are selected on other pages. Export CSV downloads every subject the current search finds, in its order, as a spreadsheet file.',
    'Deleting asks for a confirmation and ends the sessions of that subject. Lifting a lockout lets a subject locked after failed logins log in again at once. A subject\'s view lists its last 20 events (logins, lockouts, changes, by whom and from where), with a link to older ones.',
    'A subject\'s view says whether two-step sign-in is on. "Remove second factor" takes it off (for someone who lost the phone and the recovery codes); it needs a session you confirmed with your own code: the link asks for your password and code first when yours was not. Without a second factor of your own you cannot confirm it, so the view says so instead: turn on two-step sign-in in Self-Service first.',
    'In the preferences (Edit mode of this window) you choose the page size (5 to 100), the columns of the result table and the context.',
  ];

  protected readonly actions: Record<string, PortletAction> = {
    search: { run: (rq, rs) => this.search(rq, rs), words: () => ({ doing: 'search subjects here' }), refill: () => ({ search: VALUE_LENGTH, filter: VALUE_LENGTH }) },
    create: {
      run: (rq, rs) => this.create(rq, rs),
      words: () => ({ doing: 'create subjects here', conflict: 'A subject with this user name or e-mail address already exists. If you have just created it, search for it.' }),
      retry: (rq) => ({ ...this.back(rq), view: 'create' }),
      refill: async (rq) => attributeRefill(['uniqueId', ...Object.keys((await svcOf(rq).context(this.contextId(rq))).attributes)]),
    },
    save: {
      run: (rq, rs) => this.save(rq, rs),
      words: (rq) => ({
        doing: `change ${param(rq, 'target')}`,
        notFound: `${param(rq, 'target')} does not exist any more.`,
        stale: `${param(rq, 'target')} was changed since this form was shown (was the form sent twice?); nothing was saved. The form shows the current values.`,
      }),
      retry: (rq) => ({ ...this.back(rq), view: 'edit', subject: param(rq, 'target') }),
      refill: async (rq) => attributeRefill(Object.keys((await svcOf(rq).context(this.contextId(rq))).attributes)),
    },
    delete: {
      run: (rq, rs) => this.remove(rq, rs),
      words: (rq) => ({ doing: `delete ${param(rq, 'target')}`, notFound: `${param(rq, 'target')} does not exist (any more): it was already deleted.` }),
      retry: (rq) => ({ ...this.back(rq), view: 'list', subject: '' }),
    },
    removeOtp: {
      run: (rq, rs) => this.removeOtp(rq, rs),
      words: (rq) => ({ doing: `remove the second factor of ${param(rq, 'target')}`, notFound: `${param(rq, 'target')} does not exist (any more).` }),
      retry: (rq) => ({ ...this.back(rq), view: 'otp', subject: param(rq, 'target') }),
    },
    lift: {
      run: (rq, rs) => this.lift(rq, rs),
      words: (rq) => ({ doing: `lift the lockout of ${param(rq, 'target')}`, notFound: `${param(rq, 'target')} does not exist (any more).` }),
      retry: (rq) => this.back(rq),
    },
    // A refusal keeps what of the selection fits the bounds (the list shows it ticked) on the page it was sent from.
    choose: { run: (rq, rs) => this.choose(rq, rs), words: () => ({ doing: 'change these subjects' }), retry: (rq) => parametersOf(stateOf(rq), { view: 'list', subject: '', bulk: '' }) },
    bulk: { run: (rq, rs) => this.bulk(rq, rs), words: () => ({ doing: 'change these subjects' }), retry: (rq) => ({ ...this.back(rq), view: 'list' }) },
    preferences: { run: (rq, rs) => this.savePreferences(rq, rs), words: () => ({ doing: 'change these preferences' }), retry: () => ({}), refill: () => ({ pageSize: 8, context: ID_LENGTH }) },
  };

  /** The preference, or the administrator's own context. */
  private contextId(request: PortletRequest): string {
    const chosen = settingsOf(request.getPreferences()).context;
    if (chosen) return chosen;
    return svcUserOf(request)?.contextId ?? this.getInitParameter('context') ?? 'employees';
  }

  /** The state a form was sent from (its hidden fields), to return to. */
  private back(request: ActionRequest): Record<string, string> {
    return hiddenFieldsOf(stateOf(request));
  }

  protected override async doView(request: RenderRequest, response: RenderResponse): Promise<void> {
    const flash = takeFlash(request);
    const state = stateOf(request);
    const contextId = this.contextId(request);
    await this.show(response, `manage the subjects of ${contextId}`, async () => {
      const svc = svcOf(request);
      const top = flashMessage(response, flash);
      const body = await this.viewBody(request, response, svc, contextId, state, flash);
      return html`${top}${body}`;
    });
  }

  private async viewBody(request: RenderRequest, response: RenderResponse, svc: Svc, contextId: string, state: AdminState, flash: Flash | undefined): Promise<Html> {
    if (state.view === 'create') {
      const [definition, [mayCreate]] = await Promise.all([svc.context(contextId), svc.evaluate([{ action: 'CREATE', resource: { type: 'subjects', id: contextId } }])]);
      return mayCreate ? createForm(response, state, definition, flash) : message('error', `You are not allowed to create subjects in ${contextId}.`);
    }
    if (state.view === 'delete') {
      // state.subject is a request parameter, unchecked: a malformed one is the core's to refuse (a per-item 400: not allowed).
      const [mayDelete] = await svc.evaluate([{ action: 'DELETE', resource: { type: 'subject', id: principalName({ contextId, uniqueId: state.subject }) } }]);
      return mayDelete ? deleteConfirmation(response, state, state.subject) : message('error', `You are not allowed to delete ${state.subject}.`);
    }
    if (state.view === 'otp') {
      const [removal] = await svc.decide([{ action: 'UPDATE', resource: { type: 'subject.otp', id: principalName({ contextId, uniqueId: state.subject }) } }]);
      if (removal === 'deny') return message('error', `You are not allowed to remove the second factor of ${state.subject}.`);
      if (removal === 'allow' && (await this.lacksOwnFactor(request, svc, contextId, state.subject))) return otpRemovalNeedsOwnFactor(response, state, state.subject, secondFactorPageOf(request));
      return otpRemovalConfirmation(response, state, state.subject);
    }
    if (state.view === 'bulk') return this.bulkView(request, response, svc, contextId, state);
    if (state.view === 'events') return this.eventsView(request, response, svc, contextId, state);
    if (state.view === 'show' || state.view === 'edit') return this.oneSubject(request, response, svc, contextId, state, flash);
    return this.list(request, response, svc, contextId, state, flash);
  }

  private async oneSubject(request: RenderRequest, response: RenderResponse, svc: Svc, contextId: string, state: AdminState, flash: Flash | undefined): Promise<Html> {
    const id = principalName({ contextId, uniqueId: state.subject });
    const showing = state.view === 'show';
    // Two requests at once (issue 28): one batch of decisions for the controls (the four of a row, then
    // removing the second factor: a step-up is told apart), and the subject's READ with, when shown,
    // its second factor, lock and newest events, each in the answer only when the core lets this user
    // read it (the decision their own routes make). After a save the READ comes too: the lock and the
    // events are not in what the save answered. (A third, the administrator's own factor, only where
    // the subject has one that the policies let them remove: lacksOwnFactor.)
    const [definition, read, decisions] = await Promise.all([
      svc.context(contextId),
      svc.read(contextId, state.subject, showing ? { otp: true, lockout: true, events: true } : {}),
      svc.decide([...rowQuestions(contextId, state.subject), { action: 'UPDATE', resource: { type: 'subject.otp', id } }]),
    ]);
    const may = rowRights(decisions.map((d) => d === 'allow'), 0);
    if (state.view === 'edit' && may.update) return editForm(response, state, definition, read.subject, read.etag, flash);
    const otp = read.otp;
    // Allowed by the policies, the removal still needs a level 3 session (SPEC 15), which an
    // administrator without a factor of their own can never have: asked only where it matters.
    const removal = decisions[4];
    const removeOtp: SubjectView['removeOtp'] = removal === 'allow' && otp !== undefined && otp.state !== 'none' && (await this.lacksOwnFactor(request, svc, contextId, state.subject, otp)) ? 'own_factor_needed' : removal;
    return subjectDetails(response, state, { definition, subject: read.subject, may, lockout: read.lockout, events: read.events, otp, removeOtp, secondFactorPage: secondFactorPageOf(request) });
  }

  /**
   * True when the administrator has no confirmed second factor of their own (SPEC 15), so that the
   * level 3 session removing another's factor needs is out of reach: `GET …/otp` of their own
   * subject (every user may read it), or the subject's own state when it is theirs. Unknown (svc
   * did not answer): false, and the control is offered as before.
   */
  private async lacksOwnFactor(request: PortletRequest, svc: Svc, contextId: string, subjectId: string, subjectOtp?: OtpState): Promise<boolean> {
    const user = svcUserOf(request);
    if (!user) return false;
    const own = user.contextId === contextId && user.uniqueId === subjectId && subjectOtp ? subjectOtp : await svc.otpState(user.contextId, user.uniqueId).catch(() => undefined);
    return own !== undefined && own.state !== 'confirmed';
  }

  private async eventsView(request: RenderRequest, response: RenderResponse, svc: Svc, contextId: string, state: AdminState): Promise<Html> {
    const [mayRead] = await svc.evaluate([{ action: 'READ', resource: { type: 'subject.events', id: principalName({ contextId, uniqueId: state.subject }) } }]);
    if (!mayRead) return message('error', `You are not allowed to read the events of ${state.subject}.`);
    const pageSize = settingsOf(request.getPreferences()).pageSize;
    const events = await svc.events(contextId, state.subject, state.events, pageSize);
    return eventsPage(response, state, state.subject, events, pageSize);
  }

  /** The order asked for, when the context can sort by it (SPEC 3: uniqueId or a search attribute); anything else is the default. */
  private async sortOf(svc: Svc, contextId: string, state: AdminState): Promise<string> {
    if (!state.sort || state.sort === 'uniqueId') return '';
    const definition = await svc.context(contextId);
    return definition.searchAttributes.includes(state.sort) ? state.sort : '';
  }

  private async list(request: RenderRequest, response: RenderResponse, svc: Svc, contextId: string, stateAsked: AdminState, flash: Flash | undefined): Promise<Html> {
    const settings = settingsOf(request.getPreferences());
    const state = { ...stateAsked, sort: await this.sortOf(svc, contextId, stateAsked) };
    // The page's one SEARCH: sorted by the core, each result's status (locked, disabled) with it.
    const searching = svc.search(contextId, { search: state.search, filter: state.filter, sort: state.sort, order: state.order, offset: state.offset, quantity: settings.pageSize, includeStatus: true });
    const [definition, page] = await Promise.all([svc.context(contextId), searching.catch((error: unknown) => refusedSearch(error))]);
    if ('refused' in page) {
      const fields = { filter: page.refused.fields.filter ?? page.refused.message };
      return searchForm(response, state, { kind: 'error', message: page.refused.message, fields, values: flash?.values });
    }
    const readable = readableAttributes(definition);
    const columns = settings.columns.filter((c) => readable.includes(c));
    // The page's one batch of evaluations: CREATE, then each row's (which also decide its checkbox).
    const locked = page.results.map((s) => s.status?.locked === true);
    const questions: AccessQuestion[] = [{ action: 'CREATE', resource: { type: 'subjects', id: contextId } }, ...page.results.flatMap((s, i) => rowQuestions(contextId, s.uniqueId, locked[i]))];
    const [mayCreate, ...answers] = await svc.evaluate(questions);
    let from = 0;
    const rights = locked.map((lift) => {
      const may = rowRights(answers, from, lift);
      from += lift ? 4 : 3;
      return may;
    });
    const self = this.selfIn(request, contextId);
    const options = { definition, columns, rights, contextId, self };
    const controls = listControls(response, mayCreate ? urlTo(response, state, { view: 'create' }) : undefined, csvExportPath(contextId, state));
    const results = liveResults(response, state, settings.pageSize, options, resultTable(response, state, page, options));
    return html`${searchForm(response, state, flash)}${controls}${results}`;
  }

  /** The administrator's own uniqueId when it is of this context: never in a bulk selection. */
  private selfIn(request: PortletRequest, contextId: string): string | undefined {
    const user = svcUserOf(request);
    return user?.contextId === contextId ? user.uniqueId : undefined;
  }

  /** The confirmation of a bulk action: the chosen subjects, each allowed or not by one batch of evaluations. */
  private async bulkView(request: RenderRequest, response: RenderResponse, svc: Svc, contextId: string, state: AdminState): Promise<Html> {
    if (!state.bulk || !state.selected.length) return message('error', 'Choose an action and select at least one subject in the list.');
    const self = this.selfIn(request, contextId);
    const chosen = state.selected.filter((id) => id !== self);
    const operation = state.bulk === 'delete' ? 'DELETE' : 'UPDATE';
    const answers = await svc.evaluate(chosen.map((uniqueId) => ({ action: operation, resource: { type: 'subject', id: principalName({ contextId, uniqueId }) } })));
    const allowed = chosen.filter((_id, i) => answers[i]);
    const refused = [
      ...(self && state.selected.includes(self) ? [{ id: self, why: 'your own account is not changed by a bulk action' }] : []),
      ...chosen.filter((_id, i) => !answers[i]).map((id) => ({ id, why: `you are not allowed to ${state.bulk} it` })),
    ];
    return bulkConfirmation(response, state, state.bulk, allowed, refused);
  }

  private async search(request: ActionRequest, response: ActionResponse): Promise<void> {
    const search = param(request, 'search');
    const filter = param(request, 'filter');
    const { sort, order } = stateOf(request);
    // The filter is checked by the core when the list renders; a refusal shows there, beside the field.
    response.setRenderParameters(parametersOf({ view: 'list', search, filter, sort, order }));
  }

  /**
   * The bulk form: the ticked rows of this page and those carried from other pages (its hidden
   * fields), either to another page of the list (a pager button, `moveTo` its offset: the selection
   * goes along in the render parameters) or, with an action, to the one confirmation page (nothing
   * changes yet). A selection beyond the bounds is refused in words, whichever button sent it.
   */
  private async choose(request: ActionRequest, response: ActionResponse): Promise<void> {
    const state = stateOf(request);
    const posted = selectionOf(request).length;
    if (posted > state.selected.length) {
      const why = posted > BULK_LIMIT ? `At most ${BULK_LIMIT} subjects can be selected at once; ${posted} were.` : `The selected user names are too long to carry between pages together; ${posted} were selected.`;
      throw new FormRefusal(`${why} The first ${state.selected.length} are still selected: untick some, or act on these first.`);
    }
    const moveTo = request.getParameter('moveTo');
    if (moveTo !== null) {
      response.setRenderParameters(parametersOf(state, { view: 'list', subject: '', bulk: '', offset: offsetOf(moveTo) }));
      return;
    }
    if (!state.bulk) throw new FormRefusal('Choose what to do with the selected subjects.');
    if (!state.selected.length) throw new FormRefusal('Select at least one subject, then choose what to do with them.');
    response.setRenderParameters(parametersOf(state, { view: 'bulk', subject: '' }));
  }

  /**
   * The confirmed bulk action: each subject disabled, enabled or deleted by its own request (the core
   * decides each; four at a time), and one sentence for the outcome. A confirmation sent twice
   * changes nothing twice: disabling is the same write again, a second delete finds nothing.
   */
  private async bulk(request: ActionRequest, response: ActionResponse): Promise<void> {
    const svc = svcOf(request);
    const contextId = this.contextId(request);
    const action = stateOf(request).bulk;
    const self = this.selfIn(request, contextId);
    const targets = [...new Set(request.getParameterValues('target') ?? [])].filter((t): t is string => typeof t === 'string' && t !== '' && t !== self).slice(0, BULK_LIMIT);
    if (!action || !targets.length) throw new FormRefusal('Choose an action and select at least one subject in the list.');
    const one = (id: string): Promise<void> => {
      if (action === 'delete') return svc.remove(contextId, id);
      return svc.update(contextId, id, { disabled: action === 'disable' ? 'true' : 'false' }, undefined).then(() => undefined);
    };
    const outcomes = await inTurn(targets, 4, one);
    const done = targets.filter((_t, i) => outcomes[i] === undefined);
    const missing = targets.filter((_t, i) => outcomes[i] instanceof SvcClientError && (outcomes[i] as SvcClientError).status === 404);
    const failed = targets.filter((t, i) => outcomes[i] !== undefined && !missing.includes(t));
    const unexpected = outcomes.find((o) => o !== undefined && !(o instanceof SvcClientError));
    if (unexpected) throw unexpected;
    const words = BULK_WORDS[action];
    const sentences = [
      done.length ? `${done.length === 1 ? '1 subject was' : `${done.length} subjects were`} ${words.done}: ${done.join(', ')}.` : `No subject was ${words.done}.`,
      missing.length ? `${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist (any more)${action === 'delete' ? ': already deleted' : ''}.` : '',
      failed.length ? `${failed.join(', ')}: ${describeFailure(outcomes[targets.indexOf(failed[0])], { doing: `${action} ${failed[0]}` }).message}` : '',
    ].filter(Boolean);
    setFlash(request, { kind: failed.length || !done.length ? 'error' : 'success', message: sentences.join(' ') });
    response.setRenderParameters(parametersOf({ ...stateOf(request), view: 'list', subject: '', bulk: '', selected: [] }));
  }

  private async create(request: ActionRequest, response: ActionResponse): Promise<void> {
    const svc = svcOf(request);
    const contextId = this.contextId(request);
    const definition = await svc.context(contextId);
    this.checkRepeat(request, definition);
    const uniqueId = param(request, 'uniqueId');
    if (!uniqueId) throw new FormRefusal('Give the user name.', { uniqueId: 'User name is required.' });
    const attributes = postedAttributes(request, definition, Object.keys(definition.attributes));
    const created = await svc.create(contextId, uniqueId, attributes as Record<string, string | string[]>);
    setFlash(request, { kind: 'success', message: `${created.uniqueId} was created.` });
    response.setRenderParameters(parametersOf({ ...stateOf(request), view: 'show', subject: created.uniqueId }));
  }

  private checkRepeat(request: ActionRequest, definition: ContextDefinition): void {
    const password = definition.passwordAttribute;
    if (password && param(request, password, false) !== param(request, REPEAT, false)) {
      throw new FormRefusal('The two passwords differ; type the same password twice.', { [REPEAT]: 'The two passwords differ.' });
    }
  }

  private async save(request: ActionRequest, response: ActionResponse): Promise<void> {
    const svc = svcOf(request);
    const contextId = this.contextId(request);
    const target = param(request, 'target');
    const definition = await svc.context(contextId);
    this.checkRepeat(request, definition);
    const entries = Object.entries(definition.attributes);
    const editable = entries.filter(([, d]) => d.mutability === 'readWrite' || d.mutability === 'admin').map(([n]) => n);
    const writeOnly = entries.filter(([, d]) => d.mutability === 'writeOnly').map(([n]) => n);
    // Write-only values are never shown, so an empty field keeps them; an emptied visible field removes its attribute.
    const attributes = { ...postedAttributes(request, definition, editable, true), ...postedAttributes(request, definition, writeOnly) };
    await svc.update(contextId, target, attributes, param(request, 'etag') || undefined);
    setFlash(request, { kind: 'success', message: `${target} was saved.` });
    response.setRenderParameters(parametersOf({ ...stateOf(request), view: 'show', subject: target }));
  }

  private async remove(request: ActionRequest, response: ActionResponse): Promise<void> {
    const target = param(request, 'target');
    await svcOf(request).remove(this.contextId(request), target);
    setFlash(request, { kind: 'success', message: `${target} was deleted.` });
    response.setRenderParameters(parametersOf({ ...stateOf(request), view: 'list', subject: '' }));
  }

  /** Another subject's second factor, removed (the core asks a level 3 session of the administrator: SPEC 15). */
  private async removeOtp(request: ActionRequest, response: ActionResponse): Promise<void> {
    const target = param(request, 'target');
    const svc = svcOf(request);
    const contextId = this.contextId(request);
    try {
      await svc.otpRemove(contextId, target);
    } catch (error) {
      // A step-up this administrator cannot complete (no factor of their own): the removal's page (retry) says why, not "confirm it is you".
      if (error instanceof SvcClientError && error.code === 'step_up_required' && (await this.lacksOwnFactor(request, svc, contextId, target))) {
        throw new FormRefusal(`The second factor of ${target} was not removed.`);
      }
      throw error;
    }
    setFlash(request, { kind: 'success', message: `The second factor of ${target} was removed; ${target} signs in with the password alone.` });
    response.setRenderParameters(parametersOf({ ...stateOf(request), view: 'show', subject: target }));
  }

  private async lift(request: ActionRequest, response: ActionResponse): Promise<void> {
    const target = param(request, 'target');
    await svcOf(request).liftLockout(this.contextId(request), target);
    setFlash(request, { kind: 'success', message: `Every lockout of ${target} was lifted; ${target} can log in again.` });
    response.setRenderParameters(this.back(request));
  }

  protected override async doEdit(request: RenderRequest, response: RenderResponse): Promise<void> {
    const flash = takeFlash(request);
    const contextId = this.contextId(request);
    await this.show(response, 'change these preferences', async () => {
      const definition = await svcOf(request).context(contextId);
      const settings = settingsOf(request.getPreferences());
      const ns = response.getNamespace();
      const values = flash?.values ?? {};
      const errors = flash?.fields ?? {};
      const options = readableAttributes(definition).map((name) => ({ value: name, label: labelOf(name), checked: settings.columns.includes(name) }));
      const body = html`${field(ns, { name: 'pageSize', label: 'Page size', value: values.pageSize ?? String(settings.pageSize), error: errors.pageSize, hint: `A number from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}.` })}${checkboxes(ns, 'columns', 'Columns of the result table', options)}${field(ns, {
        name: 'context',
        label: 'Context',
        value: values.context ?? settings.context,
        error: errors.context,
        hint: 'Empty: your own context.',
      })}${button('Save preferences')}`;
      const top = flash ? message(flash.kind, flash.message) : html``;
      return html`${top}${actionForm(response.createActionURL().toString(), { [OP]: 'preferences' }, body, 'User Admin preferences')}`;
    });
  }

  private async savePreferences(request: ActionRequest, response: ActionResponse): Promise<void> {
    const preferences = request.getPreferences();
    preferences.setValue('pageSize', param(request, 'pageSize'));
    preferences.setValues('columns', request.getParameterValues('columns') ?? []);
    preferences.setValue('context', param(request, 'context'));
    try {
      await preferences.store();
    } catch (error) {
      if (!(error instanceof ValidatorException)) throw error;
      const words: Record<string, string> = {
        pageSize: `Page size must be a whole number from ${PAGE_SIZE.min} to ${PAGE_SIZE.max}.`,
        columns: 'Choose columns from the list.',
        context: 'A context id uses letters, digits and . _ - only.',
      };
      const fields = Object.fromEntries(error.getFailedKeys().map((key) => [key, words[key] ?? 'This value cannot be used.']));
      throw new FormRefusal('The preferences were not saved; correct the marked fields.', fields);
    }
    setFlash(request, { kind: 'success', message: 'Your preferences were saved.' });
    response.setPortletMode(PortletMode.VIEW);
  }
}
