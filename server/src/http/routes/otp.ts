import { MalformedBody } from '../../../../common/src/errors';
import { documentBody } from '../body';
import { step, type Exchange } from '../exchange';
import { sendDocument } from '../respond';
import type { RestResource } from '../rest-resource';
import type { HttpServices } from '../services';

/** A body of exactly these string members, or 400 naming the shape. */
function members<K extends string>(x: Exchange, names: readonly K[]): Record<K, string> {
  const doc = documentBody(x.req);
  const shape = `{${names.map((n) => `"${n}": "..."`).join(', ')}}`;
  if (!doc || Object.keys(doc).length !== names.length || names.some((n) => typeof doc[n] !== 'string')) throw new MalformedBody(`the body must be ${shape}`);
  return Object.fromEntries(names.map((n) => [n, doc[n] as string])) as Record<K, string>;
}

/**
 * `{base}/contexts/{c}/subjects/{s}/otp` (SPEC 15). GET (a READ) says whether the subject has a
 * factor, never the secret: `{"otp":{"state":"none"|"pending"|"confirmed","recoveryCodesLeft":N}}`
 * (Self-Service shows it, User Admin offers a removal only where there is one). Every other
 * method is an UPDATE of its target: POST with
 * the password enrolls (201, the secret and its URI, shown this once), PUT with a first code
 * confirms (200, the recovery codes, shown this once), DELETE with the password and a code removes
 * one's own, DELETE without a body another's (at level 3, or SYSTEM).
 */
export const otp = (s: Pick<HttpServices, 'secondFactors'>): RestResource => ({
  path: '/contexts/:contextId/subjects/:subjectId/otp',
  methods: { GET: 'READ', POST: 'UPDATE', PUT: 'UPDATE', DELETE: 'UPDATE' },
  fits: ['READ', 'UPDATE'],
  name: 'this resource',
  target: (ids) => `contexts/${ids.contextId}/subjects/${ids.subjectId}/otp`,
  perform: {
    GET: step('readOtp', (x) => {
      const state = s.secondFactors.state({ contextId: x.ids.contextId!, uniqueId: x.ids.subjectId! });
      x.res.setHeader('Cache-Control', 'no-store');
      sendDocument(x.req, x.res, 200, { otp: state }, { xmlRoot: 'otp' });
    }),
    POST: step('enrollOtp', async (x) => {
      const { password } = members(x, ['password']);
      const enrollment = await s.secondFactors.enroll(x.ids.contextId!, x.ids.subjectId!, password, x.state);
      x.res.setHeader('Cache-Control', 'no-store');
      sendDocument(x.req, x.res, 201, enrollment, { xmlRoot: 'otp' });
    }),
    PUT: step('confirmOtp', async (x) => {
      const { code } = members(x, ['code']);
      const recoveryCodes = await s.secondFactors.confirm(x.ids.contextId!, x.ids.subjectId!, code, x.state);
      x.res.setHeader('Cache-Control', 'no-store');
      sendDocument(x.req, x.res, 200, { recoveryCodes }, { xmlRoot: 'otp' });
    }),
    DELETE: step('removeOtp', async (x) => {
      const { contextId, subjectId } = x.ids as { contextId: string; subjectId: string };
      const principal = x.state.session.principal;
      const own = principal?.contextId === contextId && principal.uniqueId === subjectId;
      if (own || documentBody(x.req) !== undefined) {
        const { password, code } = members(x, ['password', 'code']);
        await s.secondFactors.removeOwn(contextId, subjectId, password, code, x.state);
      } else {
        await s.secondFactors.removeOther(contextId, subjectId, x.state);
      }
      x.res.status(204).end();
    }),
  },
});
