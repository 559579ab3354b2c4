import { createHash } from 'node:crypto';
import type { ContextConfig } from '../../config/types';
import type { SubjectService } from '../../subjects/subject-service';
import { step } from '../exchange';
import type { RestResource } from '../rest-resource';
import { notModified, sendDocument } from '../respond';
import type { HttpServices } from '../services';

/** What a form needs to be built from a context's definition (the portlets, SPEC 10.4). */
function contextDocument(config: ContextConfig, mails: boolean) {
  const attributes = Object.fromEntries(
    Object.entries(config.definition.attributes).map(([name, d]) => [name, { type: d.type, multivalued: d.multivalued, required: d.required, unique: d.unique, mutability: d.mutability }]),
  );
  return {
    context: {
      id: config.id,
      attributes,
      searchAttributes: config.searchAttributes,
      // Which attributes a registrant gives, and which one is the password.
      registration: config.registration.enabled,
      registrationAttributes: config.registration.enabled ? config.registration.attributes : [],
      passwordAttribute: config.definition.password ?? null,
      forgottenPassword: config.forgottenPassword.enabled,
      // SPEC 16: which ways a forgotten password is recovered, and whether a registrant confirms an address (only where svc mails).
      forgottenPasswordMethods: config.forgottenPassword.enabled ? config.forgottenPassword.methods.filter((m) => m === 'questions' || mails) : [],
      verifyEmail: mails && config.registration.enabled && config.registration.verifyEmail,
    },
  };
}

/** `{base}/contexts`: the contexts the session's client may use, its default marked. */
export const contexts = (s: Pick<HttpServices, 'client'>): RestResource => ({
  path: '/contexts',
  methods: { GET: 'SEARCH' },
  fits: [],
  name: 'this resource',
  target: () => 'contexts',
  perform: {
    GET: step('listContexts', ({ req, res, state, config }) => {
      const client = s.client(state.session.clientId);
      const ids = client ? client.contexts : config.contexts.map((c) => c.id);
      sendDocument(req, res, 200, { contexts: ids.map((id) => ({ id, default: id === (client?.defaultContext ?? ids[0]) })) });
    }),
  },
});

/** `{base}/contexts/{c}`: the context's definition, for forms. */
export const context = (s: { subjects: Pick<SubjectService, 'context'> }): RestResource => ({
  path: '/contexts/:contextId',
  methods: { GET: 'READ' },
  fits: [],
  name: 'this resource',
  target: (ids) => `contexts/${ids.contextId}`,
  perform: {
    GET: step('readContext', ({ req, res, ids, config }) => {
      const document = contextDocument(s.subjects.context(ids.contextId!).config, config.mail !== undefined);
      // A definition changes only with a configuration reload: a portal holding it revalidates
      // with If-None-Match (issue 28) and gets a 304 until then.
      const etag = `"${createHash('sha256').update(JSON.stringify(document)).digest('base64url').slice(0, 22)}"`;
      res.setHeader('ETag', etag);
      if (!notModified(req, etag)) return sendDocument(req, res, 200, document);
      res.status(304).end();
    }),
  },
});
