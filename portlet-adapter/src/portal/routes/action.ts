/**
 * `POST {root}/page/{pageId}/action/{windowId}?_csrf=…` (SPEC 10.2): the session's CSRF token and an
 * `Origin` of `publicOrigin`, or 403 before anything else; then `processAction` of that one window,
 * then 303 to the page's render URL with the new render state (or where `sendRedirect` said).
 */
import type { Request, Response } from 'express';
import { Forbidden, NotFound } from '../../../../common/src/errors';
import { toParameters } from '../../container/parameters';
import { driverRequest, pageState } from '../aggregate';
import { readBody } from '../body';
import type { PortalDeps } from '../deps';
import type { Identity } from '../identity';
import { maySeePage } from '../pages';
import { loginUrl } from '../respond';
import { renderUrl, withWindow } from '../url-codec';

export async function action(deps: PortalDeps, req: Request, res: Response, identity: Identity): Promise<void> {
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?') + 1) : '';
  const token = new URLSearchParams(query).get('_csrf');
  if (!deps.csrf.accepts(req, deps.identities.handleOf(identity), token)) {
    deps.log.warn({ requestId: res.locals.requestId, origin: req.headers.origin ?? null }, 'action refused: CSRF token or origin');
    throw new Forbidden('This form was not sent from this portal, or it is too old. Go back, reload the page and try again.');
  }
  const pageConfig = deps.pages.get(req.params.pageId as string);
  if (pageConfig === undefined) throw new NotFound('There is no such page.');
  if (!maySeePage(identity, pageConfig)) {
    if (identity.kind === 'visitor') return res.redirect(303, loginUrl(deps.config.root, `${deps.config.root}/page/${encodeURIComponent(pageConfig.id)}`));
    throw new Forbidden('You are not allowed to use this page.');
  }
  const state = pageState(deps, identity, pageConfig, query);
  const windowId = req.params.windowId as string;
  const window = state.windows.find((w) => w.id === windowId);
  if (window === undefined) throw new NotFound('There is no such window on this page.');

  const body = await readBody(req, res, deps.config.bodyLimit);
  const parameters: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(state.parsed.actionParameters.get(windowId) ?? {})) parameters[name] = [...values];
  for (const [name, value] of body.form ?? []) if (name !== '_csrf' && name !== '') (parameters[name] ??= []).push(value);

  const requestId = String(res.locals.requestId);
  const request = driverRequest(deps, req, requestId, identity, pageConfig, state.urlStates);
  const started = process.hrtime.bigint();
  const outcome = await deps.container.action({ id: window.id, portletName: window.portlet }, state.states.get(window.id)!, toParameters(parameters), { bytes: body.bytes, contentType: body.contentType, isForm: body.form !== undefined }, request);
  deps.metrics.portlets.observe({ portlet: window.portlet, phase: 'action', outcome: outcome.status }, Number(process.hrtime.bigint() - started) / 1e9);

  const page = { root: deps.config.root, pageId: pageConfig.id, windows: state.urlStates };
  if (outcome.status !== 'ok') {
    deps.metrics.portletErrors.inc({ portlet: window.portlet, phase: 'action', reason: outcome.status });
    const current = state.urlStates.get(windowId)!;
    return res.redirect(303, renderUrl(withWindow(page, windowId, { ...current, parameters: {} }), { failedAction: windowId }));
  }
  const result = outcome.result;
  if (result.kind === 'redirect') return res.redirect(303, result.location);
  const next = { mode: result.mode.toString(), state: result.state.toString(), parameters: result.parameters };
  res.redirect(303, renderUrl(withWindow(page, windowId, next)));
}
