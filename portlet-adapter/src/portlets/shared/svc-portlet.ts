/**
 * What the four portlets share: dispatch of a form's `op` to one named action, a failed svc call
 * turned into words (at the top of the window or next to its field), HELP as a few sentences, and
 * render failures of svc shown in the window instead of reaching the container as an exception.
 */
import { GenericPortlet, type ActionRequest, type ActionResponse, type PortletRequest, type RenderRequest, type RenderResponse } from '../../api';
import { SvcClientError } from '../../gateway-client';
import { describeFailure, type FailureWords } from './failure';
import { failureFlash } from './flash';
import { html, Html, message, stepUpLink, writeFragment } from './markup';

/** The hidden field naming the action a form asks for. */
export const OP = 'op';

export type Action = (request: ActionRequest, response: ActionResponse) => Promise<void>;

export interface PortletAction {
  run: Action;
  /** How a refusal of this action reads. */
  words: (request: ActionRequest) => FailureWords;
  /** The render parameters after a refusal (the form to show again); none: the window's first view. */
  retry?: (request: ActionRequest) => Record<string, string | string[]>;
  /** The fields the action's form declares, each with its length limit: what a refusal shows again. None: nothing. */
  refill?: (request: ActionRequest) => RefillFields | Promise<RefillFields>;
}

/** A form's fields and the most characters each may hold. */
export type RefillFields = Readonly<Record<string, number>>;

/** A refill is small (SPEC 10.2: it may travel in a visitor's cookie): at most this many bytes of JSON. */
export const MAX_REFILL_BYTES = 1536;
/** A subject id's limit (SPEC 3). */
export const ID_LENGTH = 256;
/** An attribute value's limit when its context says none (the core's default `maxLength`). */
export const VALUE_LENGTH = 1024;

/** Thrown by an action to show a refusal found before svc was asked (e.g. two passwords differ). */
export class FormRefusal extends Error {
  constructor(
    message: string,
    readonly fields: Record<string, string> = {},
  ) {
    super(message);
  }
}


/** A parameter as text: trimmed unless it is a password-like field. */
export function param(request: PortletRequest, name: string, trim = true): string {
  const value = request.getParameter(name) ?? '';
  return trim ? value.trim() : value;
}

/** Fields never shown again after a refusal: passwords and answers are typed again. */
const SECRET_FIELD = /password|answer/i;

/**
 * What the user typed into the form's own fields, to fill it again after a refusal: never a secret,
 * never `op`, never a field the form does not declare or a value past its field's limit (nothing
 * else a request carries is kept), and at most MAX_REFILL_BYTES in all (fields in the form's order
 * until it is reached).
 */
export function typedValues(request: PortletRequest, fields: RefillFields): Record<string, string> {
  const values: Record<string, string> = {};
  let bytes = 2;
  for (const [name, limit] of Object.entries(fields)) {
    if (name === OP || SECRET_FIELD.test(name)) continue;
    const given = request.getParameterValues(name);
    if (!given?.length) continue;
    const value = given.join('\n');
    if (value.length > limit) continue;
    const size = Buffer.byteLength(JSON.stringify(name) + JSON.stringify(value), 'utf8') + 2;
    if (bytes + size > MAX_REFILL_BYTES) continue;
    bytes += size;
    values[name] = value;
  }
  return values;
}

/** The refill fields of a context's attribute form: ids to their limit, other values to theirs. */
export function attributeRefill(names: readonly string[]): RefillFields {
  return Object.fromEntries(names.map((name) => [name, name === 'uniqueId' ? ID_LENGTH : VALUE_LENGTH]));
}

export abstract class SvcPortlet extends GenericPortlet {
  /** The actions of this portlet by `op`. */
  protected abstract readonly actions: Record<string, PortletAction>;

  /** HELP mode's text: a few paragraphs. */
  protected abstract readonly help: string[];

  override async processAction(request: ActionRequest, response: ActionResponse): Promise<void> {
    const op = param(request, OP);
    const action = Object.hasOwn(this.actions, op) ? this.actions[op] : undefined;
    if (!action) return; // an unknown or missing op does nothing; the window renders as it was
    try {
      await action.run(request, response);
    } catch (error) {
      const values = await this.#refillOf(action, request);
      if (action.retry) response.setRenderParameters(action.retry(request));
      if (error instanceof FormRefusal) return failureFlash(request, { message: error.message, fields: error.fields }, values);
      if (!(error instanceof SvcClientError)) throw error;
      failureFlash(request, describeFailure(error, action.words(request)), values);
    }
  }

  /** What a refusal shows again: only the fields the action declares (none when it declares none, or they cannot be known now). */
  async #refillOf(action: PortletAction, request: ActionRequest): Promise<Record<string, string>> {
    try {
      return action.refill ? typedValues(request, await action.refill(request)) : {};
    } catch {
      return {};
    }
  }

  protected override doHelp(_request: RenderRequest, response: RenderResponse): void {
    writeFragment(response, html`<div class="portlet-font">${this.help.map((p) => html`<p>${p}</p>`)}</div>`);
  }

  /** Renders what `build` makes; a failed svc call shows its sentence in the window instead. */
  protected async show(response: RenderResponse, doing: string, build: () => Promise<Html>): Promise<void> {
    try {
      writeFragment(response, await build());
    } catch (error) {
      if (!(error instanceof SvcClientError)) throw error;
      const failure = describeFailure(error, { doing });
      // Denied only for want of a second factor's session: the way to it, not an error (SPEC 15).
      if (failure.stepUp) return writeFragment(response, html`${message('info', failure.message)}<p class="svc-controls">${stepUpLink(response, 'Confirm it is you', false)}</p>`);
      writeFragment(response, message('error', failure.message));
    }
  }
}
