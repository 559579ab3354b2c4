/**
 * Where the User Admin window is: its render parameters (`view`, `subject`, `search`, `filter`,
 * `offset`, `sort`, `order`; `events`, the offset of a subject's events; `bulk` and `selected`, a bulk
 * action's choice waiting for its confirmation, and `selected` also the rows ticked on other pages of
 * the list). Every link is a render URL carrying them, and every form posts them back as hidden
 * fields, so an action returns the window to where it was sent from.
 */
import type { PortletRequest, RenderResponse } from '../../api';

export type View = 'list' | 'show' | 'create' | 'edit' | 'delete' | 'events' | 'bulk' | 'otp';
const VIEWS: readonly View[] = ['list', 'show', 'create', 'edit', 'delete', 'events', 'bulk', 'otp'];

/** What a bulk action does to each selected subject. */
export type BulkAction = 'disable' | 'enable' | 'delete';
export const BULK_ACTIONS: readonly BulkAction[] = ['disable', 'enable', 'delete'];
/** At most this many subjects in one bulk action (the largest page). */
export const BULK_LIMIT = 100;
/**
 * At most this many characters of URL-encoded ids in a selection. The selection travels in render
 * URLs (the pager's redirect, the confirmation page), and a request line must fit the portal's
 * header limit (Node's 16 KiB, with the cookies) and the 8 KiB many proxies allow per line: 6,000
 * characters plus 100 keys of some 20 characters stay below 8 KiB. 100 ids of up to 60 plain
 * characters always fit; only long ids (ID_LENGTH is 256) make it the tighter bound.
 */
export const SELECTION_CHARS = 6000;

export type Order = 'asc' | 'desc';

export interface AdminState {
  view: View;
  subject: string;
  search: string;
  filter: string;
  offset: number;
  /** The attribute the list is sorted by; empty: uniqueId (the core's default). */
  sort: string;
  order: Order;
  /** The offset of the subject's events shown (view `events`). */
  events: number;
  bulk: BulkAction | '';
  selected: string[];
}

export function offsetOf(text: string | null): number {
  const n = Number(text ?? '0');
  return Number.isSafeInteger(n) && n >= 0 ? n : 0;
}

export function stateOf(request: PortletRequest): AdminState {
  const view = request.getParameter('view') as View | null;
  const bulk = request.getParameter('bulk') as BulkAction | null;
  return {
    view: view && VIEWS.includes(view) ? view : 'list',
    subject: request.getParameter('subject') ?? '',
    search: request.getParameter('search') ?? '',
    filter: request.getParameter('filter') ?? '',
    offset: offsetOf(request.getParameter('offset')),
    sort: request.getParameter('sort') ?? '',
    order: request.getParameter('order') === 'desc' ? 'desc' : 'asc',
    events: offsetOf(request.getParameter('events')),
    bulk: bulk && BULK_ACTIONS.includes(bulk) ? bulk : '',
    selected: selectionWithinBounds(selectionOf(request)),
  };
}

/** Every id sent as `selected` (a form's ticked rows and those carried from other pages), once each, in order. */
export function selectionOf(request: PortletRequest): string[] {
  const selected = (request.getParameterValues('selected') ?? []).filter((s): s is string => typeof s === 'string' && s !== '');
  return [...new Set(selected)];
}

/** The longest start of a selection within BULK_LIMIT ids and SELECTION_CHARS characters of URL. */
export function selectionWithinBounds(ids: readonly string[]): string[] {
  let chars = 0;
  let n = 0;
  for (; n < ids.length && n < BULK_LIMIT; n++) {
    chars += encodeURIComponent(ids[n]).length;
    if (chars > SELECTION_CHARS) break;
  }
  return ids.slice(0, n);
}

/** The state's fields in the order URLs and forms carry them. */
const FIELDS: ReadonlyArray<keyof AdminState> = ['view', 'subject', 'search', 'filter', 'offset', 'sort', 'order', 'events', 'bulk', 'selected'];

/**
 * The state as render parameters (empty ones, the first offset and the default order left out, so
 * URLs stay short). Given several, a later one's field replaces an earlier one's: urlTo makes some
 * sixty URLs a page, and layering costs no merged copy of the state each.
 */
export function parametersOf(...layers: Array<Partial<AdminState>>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of FIELDS) {
    let value: AdminState[keyof AdminState] | undefined;
    for (const layer of layers) if (layer[name] !== undefined) value = layer[name];
    if (value === undefined || value === '' || value === 0) continue;
    if (name === 'order' && value === 'asc') continue;
    if (Array.isArray(value)) {
      if (value.length) out[name] = value.map(String);
      continue;
    }
    out[name] = String(value);
  }
  return out;
}

/** The same, one value per field: what a form carries back as hidden fields (a bulk selection is never one). */
export function hiddenFieldsOf(state: Partial<AdminState>): Record<string, string> {
  const { selected: _selected, bulk: _bulk, ...rest } = state;
  return parametersOf(rest) as Record<string, string>;
}

/** What a URL to another state does not keep unless told: the subject, the events' offset, a bulk choice. */
const NOT_KEPT: Partial<AdminState> = { subject: '', events: 0, bulk: '', selected: [] };

/**
 * A render URL to another state of this window: the search, filter, order and page are kept unless
 * changed; the subject, the events' offset and a bulk choice are not.
 */
export function urlTo(response: RenderResponse, from: AdminState, to: Partial<AdminState>): string {
  const url = response.createRenderURL();
  url.setParameters(parametersOf(from, NOT_KEPT, to));
  return url.toString();
}
