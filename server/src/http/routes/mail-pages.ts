import type { Response } from 'express';
import { InvalidToken, NotFound } from '../../../../common/src/errors';
import type { ContextConfig, SvcConfig } from '../../config/types';
import { RESET_MESSAGE } from '../../mail/email-flows';
import { formBody, queryParam, readBody } from '../body';
import { formProblem } from '../error-handler';
import { step, type Exchange } from '../exchange';
import { asPage } from '../page-access';
import type { PageProblem } from '../pages/error-pages';
import { sendPage, type Html } from '../pages/html';
import { linkOnItsWay, linkUnusable, mailDone, resendForm, resetPasswordForm, resetRequestForm, verifyForm } from '../pages/mail-pages';
import { sameOrigin } from '../same-origin';
import type { HttpServices } from '../services';
import { RESEND_MESSAGE } from './mail';

const BODY_LIMIT = 16 * 1024;

type Services = Pick<HttpServices, 'email'>;

function show(res: Response, title: string, body: Html, problem?: PageProblem, status = 200): void {
  if (problem) for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  // A page with a token in its URL or form: never kept by a cache, never sent on as a Referer.
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  sendPage(res, problem?.status ?? status, title, body);
}

function chosen(config: SvcConfig, id: string | undefined, open: (context: ContextConfig) => boolean, what: string): ContextConfig {
  const candidates = config.contexts.filter(open);
  const found = id === undefined ? candidates[0] : candidates.find((context) => context.id === id);
  if (!found || !config.mail) throw new NotFound(id === undefined ? `no context has ${what}` : `context ${id} has no ${what}`);
  return found;
}

const byLink = (c: ContextConfig) => c.forgottenPassword.enabled && c.forgottenPassword.methods.includes('email');
const verifying = (c: ContextConfig) => c.registration.enabled && c.registration.verifyEmail;

const tokenOf = (x: Exchange) => queryParam(x.req, 'token');

function resetRequestPage(x: Exchange, contextId: string | undefined, problem?: PageProblem): void {
  const root = x.config.server.contextRoot;
  const context = chosen(x.config, contextId, byLink, 'recovery by link');
  const others = x.config.contexts.filter(byLink).map((c) => ({ id: c.id, href: `${root}/anon/reset?context=${encodeURIComponent(c.id)}` }));
  const questions = context.forgottenPassword.methods.includes('questions') ? `${root}/anon/forgot?context=${encodeURIComponent(context.id)}` : undefined;
  show(x.res, 'Forgotten password', resetRequestForm({ action: `${root}/anon/reset`, problem }, context.id, others, questions), problem);
}

/**
 * `{base}/anon/reset`: GET with `?token=` shows the new-password form (the token is not used); its
 * POST uses it. Without a token, GET asks for a name and its POST mails a link.
 */
export const resetPageRoutes = (s: Services) => ({
  GET: [
    asPage,
    step('resetPage', (x) => {
      const root = x.config.server.contextRoot;
      const token = tokenOf(x);
      if (token === undefined) return resetRequestPage(x, queryParam(x.req, 'context'));
      if (!x.config.mail) throw new NotFound('this svc sends no mail');
      show(x.res, 'Choose a new password', resetPasswordForm({ action: `${root}/anon/reset` }, token));
    }),
  ],
  POST: [
    asPage,
    readBody(BODY_LIMIT),
    sameOrigin,
    step('resetPost', async (x) => {
      const root = x.config.server.contextRoot;
      const params = formBody(x.req);
      if (params.token === undefined) {
        try {
          await s.email.requestReset(x.state, chosen(x.config, params.context, byLink, 'recovery by link').id, params.name ?? '');
        } catch (error) {
          const problem = formProblem(error);
          if (!problem) throw error;
          return resetRequestPage(x, params.context, problem);
        }
        return show(x.res, 'Check your mail', linkOnItsWay(RESET_MESSAGE, `${root}/login`), undefined, 202);
      }
      try {
        await s.email.useReset(x.state, params.token, params.password ?? '');
      } catch (error) {
        if (error instanceof InvalidToken) return show(x.res, 'Link not usable', linkUnusable(error.message, `${root}/anon/reset`, 'Ask for a new link'), undefined, 400);
        const problem = formProblem(error);
        if (!problem) throw error;
        return show(x.res, 'Choose a new password', resetPasswordForm({ action: `${root}/anon/reset`, problem }, params.token), problem);
      }
      show(x.res, 'Password changed', mailDone('Your password was changed, and every session of your account was ended.', `${root}/login`));
    }),
  ],
});

function resendPage(x: Exchange, contextId: string | undefined, problem?: PageProblem): void {
  const context = chosen(x.config, contextId, verifying, 'verified registration');
  show(x.res, 'Confirm your address', resendForm({ action: `${x.config.server.contextRoot}/anon/verify`, problem }, context.id), problem);
}

/**
 * `{base}/anon/verify`: GET with `?token=` shows one button (the token is not used); its POST uses
 * it. Without a token, GET asks for a name and its POST mails a new link to an unverified registrant.
 */
export const verifyPageRoutes = (s: Services) => ({
  GET: [
    asPage,
    step('verifyPage', (x) => {
      const token = tokenOf(x);
      if (token === undefined) return resendPage(x, queryParam(x.req, 'context'));
      if (!x.config.mail) throw new NotFound('this svc sends no mail');
      show(x.res, 'Confirm your address', verifyForm({ action: `${x.config.server.contextRoot}/anon/verify` }, token));
    }),
  ],
  POST: [
    asPage,
    readBody(BODY_LIMIT),
    sameOrigin,
    step('verifyPost', async (x) => {
      const root = x.config.server.contextRoot;
      const params = formBody(x.req);
      if (params.token === undefined) {
        try {
          await s.email.resendVerification(x.state, chosen(x.config, params.context, verifying, 'verified registration').id, params.name ?? '');
        } catch (error) {
          const problem = formProblem(error);
          if (!problem) throw error;
          return resendPage(x, params.context, problem);
        }
        return show(x.res, 'Check your mail', linkOnItsWay(RESEND_MESSAGE, `${root}/login`), undefined, 202);
      }
      let done: Awaited<ReturnType<Services['email']['verify']>>;
      try {
        done = await s.email.verify(x.state, params.token);
      } catch (error) {
        if (error instanceof InvalidToken) return show(x.res, 'Link not usable', linkUnusable(error.message, `${root}/anon/verify`, 'Ask for a new link'), undefined, 400);
        throw error;
      }
      show(x.res, 'Address confirmed', mailDone(done.kind === 'verify' ? 'Your address is confirmed: you can log in now.' : 'Your new address is confirmed: it is your account\'s address from now on.', `${root}/login`));
    }),
  ],
});
