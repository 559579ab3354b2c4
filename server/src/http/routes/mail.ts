/**
 * SPEC 16's REST endpoints: asking for a reset link and using one, verifying an address and asking
 * for a new verification link, and one's own address change. The visitor's endpoints answer the
 * same words whatever the name; a token is consumed only here or by the pages' POST.
 */
import type { Request } from 'express';
import { MalformedBody } from '../../../../common/src/errors';
import { RESET_MESSAGE } from '../../mail/email-flows';
import { documentBody, readBody } from '../body';
import { step } from '../exchange';
import type { RestResource } from '../rest-resource';
import { responseFormat, sendDocument } from '../respond';
import type { HttpServices } from '../services';
import type { ByMethod } from '../route-table';

export const RESEND_MESSAGE = 'If the name is registered and not confirmed yet, a new link is on its way.';

/**
 * The body's members, exactly these (optional ones may be absent), each a string. In XML they are the
 * children of one root element, `root` (`<passwordReset><name>…</name></passwordReset>`).
 */
function members<K extends string, O extends string = never>(req: Request, root: string, required: readonly K[], optional: readonly O[] = []): Record<K, string> & Partial<Record<O, string>> {
  const given = documentBody(req) ?? {};
  const wrapped = Object.keys(given).length === 1 && Object.hasOwn(given, root) && given[root] !== null && typeof given[root] === 'object' && !Array.isArray(given[root]);
  const doc = (wrapped ? given[root] : given) as Record<string, unknown>;
  const allowed = new Set<string>([...required, ...optional]);
  const shape = `{${[...required, ...optional.map((o) => `${o}?`)].map((k) => `"${k}"`).join(', ')}}`;
  for (const key of Object.keys(doc)) if (!allowed.has(key)) throw new MalformedBody(`the body must be ${shape}`, { errors: [{ path: key, message: 'unknown member' }] });
  for (const key of [...required, ...optional]) {
    const value = doc[key];
    if (value === undefined && !(required as readonly string[]).includes(key)) continue;
    if (typeof value !== 'string' || value.length > 2048) throw new MalformedBody(`the body must be ${shape}`, { errors: [{ path: key, message: 'a string is required' }] });
  }
  return doc as Record<K, string> & Partial<Record<O, string>>;
}

const body = readBody((config) => config.settings.bodyLimitBytes);

/** 406 before anything is done, for a client that takes neither JSON nor XML. */
const negotiated = step('negotiate', ({ req }) => void responseFormat(req));

type Services = Pick<HttpServices, 'email'>;

/** `POST {base}/resources/contexts/{c}/password-reset` `{"name","returnTo"?}` → 202, whatever the name. */
export const resetRequestRoutes = (s: Services): ByMethod => ({
  POST: [
    body,
    negotiated,
    step('requestResetLink', async (x) => {
      const { name, returnTo } = members(x.req, 'passwordReset', ['name'], ['returnTo']);
      await s.email.requestReset(x.state, x.ids.contextId!, name, returnTo);
      x.res.setHeader('Cache-Control', 'no-store');
      sendDocument(x.req, x.res, 202, { message: RESET_MESSAGE }, { xmlRoot: 'passwordReset' });
    }),
  ],
});

/** `PUT {base}/resources/password-reset` `{"token","password"}` → 204. */
export const resetUseRoutes = (s: Services): ByMethod => ({
  PUT: [
    body,
    negotiated,
    step('useResetLink', async (x) => {
      const { token, password } = members(x.req, 'passwordReset', ['token', 'password']);
      await s.email.useReset(x.state, token, password);
      x.res.status(204).end();
    }),
  ],
});

/** `POST {base}/resources/email-verification` `{"token"}` → 204. */
export const verifyRoutes = (s: Services): ByMethod => ({
  POST: [
    body,
    negotiated,
    step('verifyAddress', async (x) => {
      const { token } = members(x.req, 'emailVerification', ['token']);
      await s.email.verify(x.state, token);
      x.res.status(204).end();
    }),
  ],
});

/** `POST {base}/resources/contexts/{c}/email-verification` `{"name"}` → 202, whatever the name. */
export const resendRoutes = (s: Services): ByMethod => ({
  POST: [
    body,
    negotiated,
    step('resendVerification', async (x) => {
      const { name } = members(x.req, 'emailVerification', ['name']);
      await s.email.resendVerification(x.state, x.ids.contextId!, name);
      x.res.setHeader('Cache-Control', 'no-store');
      sendDocument(x.req, x.res, 202, { message: RESEND_MESSAGE }, { xmlRoot: 'emailVerification' });
    }),
  ],
});

/**
 * `{base}/contexts/{c}/subjects/{s}/mail`: PUT `{"mail","password"}` → 202 `{"status":"verification_sent"}`
 * whatever the address (the subject itself, proved by its password); GET → `{"mail","pending"}`, the
 * address and a pending change (`{"mail","expires"}` or null).
 */
export const mailResource = (s: Pick<HttpServices, 'email' | 'subjects'>): RestResource => ({
  path: '/contexts/:contextId/subjects/:subjectId/mail',
  methods: { GET: 'READ', PUT: 'UPDATE' },
  fits: ['READ', 'UPDATE'],
  name: 'this resource',
  target: (ids) => `contexts/${ids.contextId}/subjects/${ids.subjectId}/mail`,
  perform: {
    GET: step('readMail', async ({ req, res, ids }) => {
      const subject = await s.subjects.read(ids.contextId!, ids.subjectId!);
      const mail = subject.attributes.mail;
      res.setHeader('Cache-Control', 'no-store');
      sendDocument(req, res, 200, { mail: typeof mail === 'string' ? mail : null, pending: (await s.email.pendingAddress(ids.contextId!, ids.subjectId!)) ?? null }, { xmlRoot: 'mail' });
    }),
    PUT: step('changeOwnMail', async ({ req, res, ids, state }) => {
      const { mail, password } = members(req, 'mail', ['mail', 'password']);
      const answer = await s.email.changeAddress(state, ids.contextId!, ids.subjectId!, mail, password);
      sendDocument(req, res, 202, { status: answer.status }, { xmlRoot: 'mail' });
    }),
  },
});
