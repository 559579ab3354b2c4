/**
 * A READ's `include` (an svc extension; SPEC 3's READ names none): parts of the subject that have
 * routes of their own, carried beside `"subject"` so that a page needs one request for all of them
 * (Self-Service's otp and mail, User Admin's lockout and events: issue 28). Each part is what its own
 * route answers, and is added only when the caller may READ that route's target, decided as SEARCH's
 * `include=status` decides (mayReadPart); a part the caller may not read is absent, never an error.
 */
import { InvalidRequest } from '../../../../common/src/errors';
import { INCLUDED_EVENTS, READ_INCLUDES, type ReadInclude, type ReadIncluded } from '../../../../common/src/wire/subject-parts';
import type { SvcConfig } from '../../config/types';
import type { Asker } from '../../policy/decisions';
import type { HttpServices } from '../services';
import { eventPageDocument } from './events';
import { lockStatusDocument, mayReadPart } from './subject-status';

type Services = Pick<HttpServices, 'decisions' | 'accounts' | 'secondFactors' | 'email' | 'subjects'>;

const isReadInclude = (name: string): name is ReadInclude => (READ_INCLUDES as readonly string[]).includes(name);

/** `include`: absent (nothing), or some of otp, mail, lockout, events, comma-separated; anything else is 400 naming it. */
export function readIncludes(include: string | undefined): ReadonlySet<ReadInclude> {
  if (include === undefined) return new Set();
  const asked = include.split(',');
  if (!asked.every(isReadInclude)) {
    const names = READ_INCLUDES.join(', ');
    throw new InvalidRequest(`include must be one or more of ${names}, comma-separated`, { errors: [{ path: 'include', message: `not one of ${names}` }] });
  }
  return new Set(asked);
}

/**
 * The members the asked parts add beside the subject: each part decided and read concurrently, and
 * left out when the caller may not READ its target.
 */
export async function includedParts(s: Services, asker: Asker, config: SvcConfig, contextId: string, uniqueId: string, asked: ReadonlySet<ReadInclude>): Promise<ReadIncluded> {
  const part = async <T>(name: ReadInclude, read: () => Promise<T>): Promise<T | undefined> => (asked.has(name) && (await mayReadPart(s.decisions, asker, contextId, uniqueId, name)) ? read() : undefined);
  const [otp, mailPending, lockout, events] = await Promise.all([
    // GET …/otp's document, never a secret.
    part('otp', async () => s.secondFactors.state({ contextId, uniqueId })),
    // GET …/mail's `pending` or null; absent where svc sends no mail.
    config.mail ? part('mail', async () => (await s.email.pendingAddress(contextId, uniqueId)) ?? null) : undefined,
    part('lockout', async () => lockStatusDocument(await s.accounts.lockStatus(contextId, uniqueId))),
    part('events', async () => eventPageDocument(await s.subjects.events(contextId, uniqueId, 0, INCLUDED_EVENTS))),
  ]);
  return { ...(otp && { otp }), ...(mailPending !== undefined && { mailPending }), ...(lockout && { lockout }), ...(events && { events }) };
}
