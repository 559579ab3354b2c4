import { sessionView } from '../../sessions/session';
import { step } from '../exchange';
import type { RestResource } from '../rest-resource';
import { sendDocument } from '../respond';

/** `{base}/session` (and the seed's `{base}/sessioninfo`): the caller's own session. */
export const session = (path: '/session' | '/sessioninfo'): RestResource => ({
  path,
  methods: { GET: 'READ' },
  fits: [],
  name: 'this resource',
  target: () => 'session',
  perform: {
    GET: step('readSession', ({ req, res, state }) => sendDocument(req, res, 200, { session: sessionView(state.session) })),
  },
});
