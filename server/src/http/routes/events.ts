import { integerParam } from '../body';
import { step } from '../exchange';
import type { RestResource } from '../rest-resource';
import { sendDocument } from '../respond';
import type { HttpServices } from '../services';
import type { SubjectEventPage } from '../../../../common/src/wire/subject-event';

/** `{"events":[…],"total":N}`: the route's answer, and what READ's `include=events` embeds. */
export function eventPageDocument(page: SubjectEventPage): SubjectEventPage {
  return { events: page.events.map((e) => ({ ...e })), total: page.total };
}

/**
 * `GET {base}/contexts/{c}/subjects/{s}/events?offset&quantity` (SPEC 10.4): the audit events about a
 * subject, newest first, `{"events":[{at, type, client, principal, peer, detail}],"total":N}`.
 */
export const events = (s: Pick<HttpServices, 'subjects'>): RestResource => ({
  path: '/contexts/:contextId/subjects/:subjectId/events',
  methods: { GET: 'READ' },
  fits: ['READ'],
  name: 'this resource',
  target: (ids) => `contexts/${ids.contextId}/subjects/${ids.subjectId}/events`,
  perform: {
    GET: step('readEvents', async ({ req, res, ids, config }) => {
      const { defaultQuantity, maxQuantity } = config.settings.search;
      const offset = integerParam(req, 'offset', 0);
      const quantity = integerParam(req, 'quantity', defaultQuantity, maxQuantity);
      const page = await s.subjects.events(ids.contextId!, ids.subjectId!, offset, quantity);
      sendDocument(req, res, 200, eventPageDocument(page), { xmlRoot: 'subjectEvents' });
    }),
  },
});
