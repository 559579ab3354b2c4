/**
 * Where the User Admin window is: its render parameters (`view`, `subject`, `search`, `filter`,
 * `offset`). Every link is a render URL carrying them, and every form posts them back as hidden
 * fields, so an action returns the window to where it was sent from.
 */
import type { PortletRequest, RenderResponse } from '../../api';

export type View = 'list' | 'show' | 'create' | 'edit' | 'delete';
const VIEWS: readonly View[] = ['list', 'show', 'create', 'edit', 'delete'];

export interface AdminState {
  view: View;
  subject: string;
  search: string;
  filter: string;
  offset: number;
}

export function stateOf(request: PortletRequest): AdminState {
  const view = request.getParameter('view') as View | null;
  const offset = Number(request.getParameter('offset') ?? '0');
  return {
    view: view && VIEWS.includes(view) ? view : 'list',
    subject: request.getParameter('subject') ?? '',
    search: request.getParameter('search') ?? '',
    filter: request.getParameter('filter') ?? '',
    offset: Number.isSafeInteger(offset) && offset >= 0 ? offset : 0,
  };
}

/** The state as render parameters (empty ones left out, so URLs stay short). */
export function parametersOf(state: Partial<AdminState>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(state)
      .filter(([, v]) => v !== undefined && v !== '' && !(v === 0))
      .map(([k, v]) => [k, String(v)]),
  );
}

/** A render URL to another state of this window (the search and page are kept unless changed). */
export function urlTo(response: RenderResponse, from: AdminState, to: Partial<AdminState>): string {
  const url = response.createRenderURL();
  url.setParameters(parametersOf({ ...from, subject: '', ...to }));
  return url.toString();
}
