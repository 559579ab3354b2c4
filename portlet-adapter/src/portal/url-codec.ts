/**
 * The portal's URL scheme (SPEC 10.2), parsed and built in this one file (Apache Pluto's
 * PortalURLParser). Every window's render state travels in the query, namespaced by window id:
 *
 *   {root}/page/{pageId}?{w}.m=edit&{w}.s=maximized&{w}.p.{name}={value}…
 *   POST {root}/page/{pageId}/action/{w}?_csrf=…&{w}.a.{name}={value}&(the other windows' state)
 *
 * A window the query does not name (no `{w}.m`, `{w}.s` or `{w}.p.*`) is in its page's initial mode
 * and state; a window it names is in VIEW and NORMAL unless `.m` / `.s` say otherwise (SPEC 10.2: a
 * missing mode or state means VIEW or NORMAL). So URLs leave `.m` and `.s` out for VIEW and NORMAL
 * only when that is also the window's initial mode or state, and write `.m=view` / `.s=normal`
 * otherwise: a window configured in HELP or MAXIMIZED can come back to VIEW and NORMAL, and the usual
 * window (initially VIEW and NORMAL) keeps short URLs. `{w}.a.*` are the action URL's parameters;
 * `{w}.e=action` marks a window whose last action failed (set by the portal's 303, dropped by the
 * next URL); neither names the window's render state. Unknown windows and malformed keys are
 * ignored: a bad URL renders, it does not fail.
 */
import type { Parameters } from '../container/parameters';

/** A window's state as the URL says it (mode and state not yet checked against the portlet). */
export interface UrlWindowState {
  mode?: string;
  state?: string;
  parameters: Parameters;
}

export interface ParsedPageQuery {
  windows: Map<string, UrlWindowState>;
  /** The action parameters of the target window (`{w}.a.*`), by window. */
  actionParameters: Map<string, Parameters>;
  /** Windows whose last action failed. */
  failedActions: Set<string>;
  csrf?: string;
}

/** Bounds the work a hostile query can cause (one window rarely has more than a few parameters). */
const MAX_KEYS = 512;
const MAX_VALUES_PER_WINDOW = 128;
export const CSRF_PARAMETER = '_csrf';

/** Parses the raw query string of a page or action URL for the page's windows. */
export function parsePageQuery(query: string, windowIds: ReadonlySet<string>): ParsedPageQuery {
  const windows = new Map<string, UrlWindowState>();
  const actions = new Map<string, Record<string, string[]>>();
  const renders = new Map<string, Record<string, string[]>>();
  const counts = new Map<string, number>();
  const failedActions = new Set<string>();
  let csrf: string | undefined;
  let keys = 0;
  for (const [key, value] of new URLSearchParams(query)) {
    if (++keys > MAX_KEYS) break;
    if (key === CSRF_PARAMETER) {
      csrf ??= value;
      continue;
    }
    const dot = key.indexOf('.');
    if (dot <= 0) continue;
    const windowId = key.slice(0, dot);
    if (!windowIds.has(windowId)) continue;
    const count = (counts.get(windowId) ?? 0) + 1;
    counts.set(windowId, count);
    if (count > MAX_VALUES_PER_WINDOW) continue;
    const rest = key.slice(dot + 1);
    const named = () => {
      const window = windows.get(windowId) ?? { parameters: {} };
      windows.set(windowId, window);
      return window;
    };
    if (rest === 'm') named().mode ??= value;
    else if (rest === 's') named().state ??= value;
    else if (rest === 'e') failedActions.add(windowId);
    else if (rest.startsWith('p.') && rest.length > 2) {
      named();
      add(renders, windowId, rest.slice(2), value);
    } else if (rest.startsWith('a.') && rest.length > 2) add(actions, windowId, rest.slice(2), value);
  }
  for (const [windowId, window] of windows) window.parameters = freeze(renders.get(windowId));
  const actionParameters = new Map([...actions].map(([windowId, parameters]) => [windowId, freeze(parameters)]));
  return { windows, actionParameters, failedActions, csrf };
}

/** A window's initial mode and state (the page configuration's): what a URL that does not name it means. */
export interface InitialWindowState {
  mode: string;
  state: string;
}

const VIEW_NORMAL: InitialWindowState = { mode: 'view', state: 'normal' };

/** A window's state for a URL: mode and state as names, and the window's initial ones (VIEW and NORMAL when absent). */
export interface WindowUrlState {
  mode: string;
  state: string;
  parameters: Parameters;
  initial?: InitialWindowState;
}

export interface PageUrl {
  root: string;
  pageId: string;
  /** Every window of the page, in page order. */
  windows: ReadonlyMap<string, WindowUrlState>;
}

/** The page with one window's render state replaced (its initial mode and state kept). */
export function withWindow(page: PageUrl, windowId: string, state: { mode: string; state: string; parameters: Parameters }): PageUrl {
  const initial = page.windows.get(windowId)?.initial;
  return { ...page, windows: new Map(page.windows).set(windowId, { mode: state.mode, state: state.state, parameters: state.parameters, ...(initial ? { initial } : {}) }) };
}

/** `{root}/page/{pageId}?…`: a render URL of the page with these window states. */
export function renderUrl(page: PageUrl, extra?: { failedAction?: string }): string {
  const fields = [...page.windows].map(([windowId, window]) => encodeState(windowId, window));
  if (extra?.failedAction !== undefined) fields.push(field(`${extra.failedAction}.e`, 'action'));
  return withQuery(pagePath(page), fields);
}

/** `{root}/page/{pageId}/action/{windowId}?_csrf=…`: the target's mode, state and action parameters, the others' render state. */
export function actionUrl(page: PageUrl, windowId: string, target: { mode: string; state: string; parameters: Parameters }, csrf: string): string {
  const fields = [field(CSRF_PARAMETER, csrf)];
  for (const [id, window] of page.windows) {
    if (id !== windowId) fields.push(encodeState(id, window));
  }
  fields.push(encodeState(windowId, { mode: target.mode, state: target.state, parameters: {}, initial: page.windows.get(windowId)?.initial }));
  for (const [name, values] of Object.entries(target.parameters)) for (const value of values) fields.push(field(`${windowId}.a.${name}`, value));
  return withQuery(`${pagePath(page)}/action/${encodeURIComponent(windowId)}`, fields);
}

/** A canonical text of every window's render state (the render cache's key part). */
export function renderStateText(windows: ReadonlyMap<string, WindowUrlState>): string {
  return joinFields([...windows].map(([windowId, window]) => encodeState(windowId, window)));
}

/**
 * The render URLs of one page request. Each window's part of the query is encoded once, so a URL that
 * changes one window encodes only that window's new state: a page of User Admin makes some sixty
 * render URLs, which differ in one window's parameters. Gives what `renderUrl(withWindow(…))` gives.
 */
export class RenderUrls {
  readonly #path: string;
  /** By window: the query text of the windows before it and of those after it, and its initial mode and state. */
  readonly #around = new Map<string, { before: string; after: string; initial?: InitialWindowState }>();
  readonly #all: string;

  constructor(page: PageUrl) {
    this.#path = pagePath(page);
    const fields = [...page.windows].map(([windowId, window]) => encodeState(windowId, window));
    [...page.windows].forEach(([windowId, window], i) =>
      this.#around.set(windowId, { before: joinFields(fields.slice(0, i)), after: joinFields(fields.slice(i + 1)), initial: window.initial }),
    );
    this.#all = joinFields(fields);
  }

  /** The page with one window in this state. */
  to(windowId: string, state: { mode: string; state: string; parameters: Parameters }): string {
    const around = this.#around.get(windowId);
    const own = encodeState(windowId, state, around?.initial ?? VIEW_NORMAL);
    // A window the page does not have comes last, as withWindow adds it.
    const query = around === undefined ? joinTwo(this.#all, own) : joinTwo(joinTwo(around.before, own), around.after);
    return query ? `${this.#path}?${query}` : this.#path;
  }
}

/**
 * `.m` unless both the mode and the window's initial mode are VIEW, `.s` unless both the state and the
 * initial state are NORMAL: so a window whose initial mode or state is another always names itself, and
 * its VIEW or NORMAL is written out (a named window without `.m` / `.s` is VIEW / NORMAL when parsed).
 * The window's fields as query text ('' when it has none); `initial` when the state does not say it.
 */
function encodeState(windowId: string, window: WindowUrlState, initial = window.initial ?? VIEW_NORMAL): string {
  let out = '';
  if (window.mode !== 'view' || initial.mode !== 'view') out = field(`${windowId}.m`, window.mode);
  if (window.state !== 'normal' || initial.state !== 'normal') out = joinTwo(out, field(`${windowId}.s`, window.state));
  const parameters = window.parameters;
  for (const name in parameters) {
    const prefix = `${windowId}.p.${name}`;
    for (const value of parameters[name]) out = joinTwo(out, field(prefix, value));
  }
  return out;
}

function pagePath(page: PageUrl): string {
  return `${page.root}/page/${encodeURIComponent(page.pageId)}`;
}

function withQuery(path: string, fields: string[]): string {
  const text = joinFields(fields);
  return text ? `${path}?${text}` : path;
}

function joinFields(fields: string[]): string {
  let out = '';
  for (const text of fields) out = joinTwo(out, text);
  return out;
}

/** Two parts of a query, either of which may be empty. */
function joinTwo(a: string, b: string): string {
  return a && b ? `${a}&${b}` : a || b;
}

function field(name: string, value: string): string {
  return `${formEncode(name)}=${formEncode(value)}`;
}

/** What application/x-www-form-urlencoded leaves as it is (the URL Standard's serializer, as URLSearchParams writes). */
const FORM_SAFE = /^[A-Za-z0-9*._-]*$/;

/**
 * A name or value as URLSearchParams serializes it: space as `+`, every byte of UTF-8 outside
 * `A-Za-z0-9*-._` as `%XX`, a lone surrogate as U+FFFD. Most of the portal's names and values need no
 * encoding, and are returned as they are.
 */
export function formEncode(text: string): string {
  if (FORM_SAFE.test(text)) return text;
  // encodeURIComponent also leaves !'()~ as they are, and refuses a lone surrogate.
  return encodeURIComponent(text.toWellFormed()).replace(/[!'()~]|%20/g, (c) => (c === '%20' ? '+' : `%${c.charCodeAt(0).toString(16).toUpperCase()}`));
}

function add(target: Map<string, Record<string, string[]>>, windowId: string, name: string, value: string): void {
  let parameters = target.get(windowId);
  if (parameters === undefined) target.set(windowId, (parameters = Object.create(null) as Record<string, string[]>));
  (parameters[name] ??= []).push(value);
}

function freeze(parameters: Record<string, string[]> | undefined): Parameters {
  const out = Object.create(null) as Record<string, readonly string[]>;
  for (const [name, values] of Object.entries(parameters ?? {})) out[name] = Object.freeze(values);
  return Object.freeze(out);
}
