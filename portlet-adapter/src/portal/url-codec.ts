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
  const query = new URLSearchParams();
  for (const [windowId, window] of page.windows) appendState(query, windowId, window);
  if (extra?.failedAction !== undefined) query.append(`${extra.failedAction}.e`, 'action');
  return withQuery(`${page.root}/page/${encodeURIComponent(page.pageId)}`, query);
}

/** `{root}/page/{pageId}/action/{windowId}?_csrf=…`: the target's mode, state and action parameters, the others' render state. */
export function actionUrl(page: PageUrl, windowId: string, target: { mode: string; state: string; parameters: Parameters }, csrf: string): string {
  const query = new URLSearchParams();
  query.append(CSRF_PARAMETER, csrf);
  for (const [id, window] of page.windows) {
    if (id !== windowId) appendState(query, id, window);
  }
  appendState(query, windowId, { mode: target.mode, state: target.state, parameters: {}, initial: page.windows.get(windowId)?.initial });
  for (const [name, values] of Object.entries(target.parameters)) for (const value of values) query.append(`${windowId}.a.${name}`, value);
  return withQuery(`${page.root}/page/${encodeURIComponent(page.pageId)}/action/${encodeURIComponent(windowId)}`, query);
}

/** A canonical text of every window's render state (the render cache's key part). */
export function renderStateText(windows: ReadonlyMap<string, WindowUrlState>): string {
  const query = new URLSearchParams();
  for (const [windowId, window] of windows) appendState(query, windowId, window);
  return query.toString();
}

/**
 * `.m` unless both the mode and the window's initial mode are VIEW, `.s` unless both the state and the
 * initial state are NORMAL: so a window whose initial mode or state is another always names itself, and
 * its VIEW or NORMAL is written out (a named window without `.m` / `.s` is VIEW / NORMAL when parsed).
 */
function appendState(query: URLSearchParams, windowId: string, window: WindowUrlState): void {
  const initial = window.initial ?? VIEW_NORMAL;
  if (window.mode !== 'view' || initial.mode !== 'view') query.append(`${windowId}.m`, window.mode);
  if (window.state !== 'normal' || initial.state !== 'normal') query.append(`${windowId}.s`, window.state);
  for (const [name, values] of Object.entries(window.parameters)) for (const value of values) query.append(`${windowId}.p.${name}`, value);
}

function withQuery(path: string, query: URLSearchParams): string {
  const text = query.toString();
  return text ? `${path}?${text}` : path;
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
