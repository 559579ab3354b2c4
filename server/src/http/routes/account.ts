import { MalformedBody } from '../../../../common/src/errors';
import { documentBody } from '../body';
import { step } from '../exchange';
import type { RestResource } from '../rest-resource';
import { sendDocument } from '../respond';
import type { HttpServices } from '../services';
import { lockStatusDocument } from './subject-status';

/** `PUT {base}/contexts/{c}/subjects/{s}/password` with `{"oldPassword","newPassword"}` → 204: one's own password. */
export const password = (s: Pick<HttpServices, 'accounts'>): RestResource => ({
  path: '/contexts/:contextId/subjects/:subjectId/password',
  methods: { PUT: 'UPDATE' },
  // Own password change is an UPDATE of its target (SPEC section 6).
  fits: ['UPDATE'],
  name: 'this resource',
  target: (ids) => `contexts/${ids.contextId}/subjects/${ids.subjectId}/password`,
  perform: {
    PUT: step('changeOwnPassword', async ({ req, res, ids, state }) => {
      const doc = documentBody(req);
      const keys = doc ? Object.keys(doc) : [];
      const oldPassword = doc?.oldPassword;
      const newPassword = doc?.newPassword;
      if (typeof oldPassword !== 'string' || typeof newPassword !== 'string' || keys.length !== 2) {
        throw new MalformedBody('the body must be {"oldPassword": "...", "newPassword": "..."}');
      }
      await s.accounts.changeOwnPassword({ contextId: ids.contextId!, uniqueId: ids.subjectId!, oldPassword, newPassword, session: state.session, cookieValue: state.cookieValue, peer: state.peer });
      res.status(204).end();
    }),
  },
});

/**
 * `{base}/contexts/{c}/subjects/{s}/lockout`: GET (READ) → `{"locked","lockedUntil","failures"}`;
 * DELETE → 204: an administrator lifts the subject's locks.
 */
export const lockout = (s: Pick<HttpServices, 'accounts'>): RestResource => ({
  path: '/contexts/:contextId/subjects/:subjectId/lockout',
  // Lifting a lock changes the subject's state, so it is an UPDATE of its lockout, not a DELETE.
  methods: { GET: 'READ', DELETE: 'UPDATE' },
  fits: ['READ', 'UPDATE'],
  name: 'this resource',
  target: (ids) => `contexts/${ids.contextId}/subjects/${ids.subjectId}/lockout`,
  perform: {
    GET: step('readLockout', async ({ req, res, ids }) => {
      sendDocument(req, res, 200, lockStatusDocument(await s.accounts.lockStatus(ids.contextId!, ids.subjectId!)), { xmlRoot: 'lockout' });
    }),
    DELETE: step('liftLockout', async ({ res, ids, state }) => {
      await s.accounts.liftLockout(ids.contextId!, ids.subjectId!, state.session, state.peer);
      res.status(204).end();
    }),
  },
});
