import type { Request, Response } from 'express';
import { SvcError } from '../../../common/src/errors';
import { asSvcError, problemDetails } from '../../../common/src/problem';
import type { Logger } from '../../../common/src/log';
import { errorPage, type PageProblem } from './pages/error-pages';
import { sendPage } from './pages/html';
import { sendDocument } from './respond';

/** Logs an error that is ours to fix (anything that is not an exposed refusal); refusals are not logged. */
export function logUnexpected(log: Logger, error: unknown, req: Request): void {
  const mapped = asSvcError(error);
  if (!(mapped instanceof SvcError) || !mapped.expose) log.error({ err: error, reqId: req.res?.getHeader('X-Request-Id') }, 'unhandled error');
}

/** An error as a page shows it: the same problem details, in the parts a page uses. */
function pageProblem(error: unknown): PageProblem {
  const { status, headers, body } = problemDetails(error);
  return { status, headers, title: body.title, detail: body.detail, errors: body.errors ?? [] };
}

/**
 * A failure the visitor can correct and post again (invalid or weak input, a taken name, too many
 * tries): its problem, for the form to show again; undefined for anything else (refusals,
 * cross-site posts, server faults), which the error handler answers.
 */
export function formProblem(error: unknown): PageProblem | undefined {
  if (!(error instanceof SvcError) || !error.expose || ![400, 409, 429].includes(error.status)) return undefined;
  return pageProblem(error);
}

/** The one place where an error becomes a problem-details answer (or, for a page, its HTML form). */
export function sendProblem(req: Request, res: Response, error: unknown, asPage = false): void {
  if (asPage) {
    const problem = pageProblem(error);
    for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
    sendPage(res, problem.status, problem.title, errorPage(problem));
    return;
  }
  const { status, headers, body } = problemDetails(error);
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  sendDocument(req, res, status, body, { problem: true });
}

/** Any error of a request, wherever it was thrown: logged when it is ours to fix, answered as a problem. */
export function handleError(log: Logger, error: unknown, req: Request, res: Response, asPage = false): void {
  logUnexpected(log, error, req);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendProblem(req, res, error, asPage);
}
