import { Router, type Request, type Response } from 'express';
import { MethodNotAllowed } from '../../../../common/src/errors';
import type { WireDocument } from '../../../../common/src/wire/xml';
import type { Operation } from '../../config/types';
import type { Core } from '../../core';
import { sessionView } from '../../sessions/session';
import { assertSubjectId } from '../../subjects/subject-id';
import { authorize } from '../authorize';
import { lockoutHandler, passwordHandler } from '../login-routes';
import { rawBody } from '../body';
import { responseFormat, sendDocument } from '../respond';
import { answerCheck, answerOptions, checkedOperation } from './check';
import { RESOURCES, type Resource } from './resources';
import * as subjects from './subject-handlers';

type Params = Record<string, string>;

/** Path parameters are checked before anything else reads them (SPEC section 3). */
function checkedParams(core: Core, req: Request): Params {
  const params = req.params as Params;
  if (params.subjectId !== undefined) assertSubjectId(params.subjectId, 'subjectId');
  if (params.contextId !== undefined) core.subjects.context(params.contextId);
  return params;
}

async function perform(core: Core, resource: Resource, operation: Operation, req: Request, res: Response, p: Params): Promise<void> {
  switch (resource.kind) {
    case 'contexts': {
      const client = core.client(req.svc.session.clientId);
      const ids = client ? client.contexts : core.config.contexts.map((c) => c.id);
      const body = { contexts: ids.map((id) => ({ id, default: id === (client?.defaultContext ?? ids[0]) })) };
      return sendDocument(req, res, 200, body as unknown as WireDocument);
    }
    case 'context': {
      const { config } = core.subjects.context(p.contextId);
      const attributes = Object.fromEntries(Object.entries(config.definition.attributes).map(([name, d]) => [name, { type: d.type, multivalued: d.multivalued, required: d.required, unique: d.unique, mutability: d.mutability }]));
      const body = { context: { id: config.id, attributes, searchAttributes: config.searchAttributes, registration: config.registration.enabled, forgottenPassword: config.forgottenPassword.enabled } };
      return sendDocument(req, res, 200, body as unknown as WireDocument);
    }
    case 'session':
      return sendDocument(req, res, 200, { session: sessionView(req.svc.session) } as unknown as WireDocument);
    case 'subjects':
      return operation === 'CREATE' ? subjects.createSubject(core, req, res, p.contextId) : subjects.searchSubjects(core, req, res, p.contextId);
    case 'subject':
      if (operation === 'READ') return subjects.readSubject(core, req, res, p.contextId, p.subjectId);
      if (operation === 'UPDATE') return subjects.updateSubject(core, req, res, p.contextId, p.subjectId);
      return subjects.deleteSubject(core, req, res, p.contextId, p.subjectId);
    case 'password':
      return passwordHandler(core, req, res, p.contextId, p.subjectId);
    case 'lockout':
      return lockoutHandler(core, req, res, p.contextId, p.subjectId);
  }
}

/**
 * The REST router, mounted at `{base}/resources` and `{base}`. Every request is resolved to a
 * resource and an operation, checked (if it asks to be) or authorized, and only then performed.
 */
export function restRouter(core: Core): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const body = rawBody(core.config.global['body.limit']);
  for (const resource of RESOURCES) {
    router.all(resource.path, body, async (req, res) => {
      const p = checkedParams(core, req);
      responseFormat(req); // 406 before anything is performed
      const target = resource.target(p);
      const checked = checkedOperation(req, resource);
      if (checked) return answerCheck(core, req, res, checked, target, p.contextId, p.subjectId);
      if (req.method === 'OPTIONS') return answerOptions(core, req, res, resource, target);
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      const operation = resource.methods[method as keyof Resource['methods']];
      if (!operation) {
        res.setHeader('Allow', [...Object.keys(resource.methods), ...(resource.methods.GET ? ['HEAD'] : [])].join(', '));
        throw new MethodNotAllowed(`${req.method} is not supported here`);
      }
      await authorize(core, req.svc, operation, target);
      return perform(core, resource, operation, req, res, p);
    });
  }
  // Form 4 of the check: the keyword `authz` replaces `contexts`; the method names the operation.
  router.all(['/authz/:contextId/subjects', '/authz/:contextId/subjects/:subjectId'], async (req, res) => {
    const p = checkedParams(core, req);
    const collection = p.subjectId === undefined;
    const byMethod: Record<string, Operation | undefined> = collection
      ? { POST: 'CREATE', GET: 'SEARCH' }
      : { GET: 'READ', PUT: 'UPDATE', DELETE: 'DELETE' };
    // HEAD is GET without a body: the same question, answered with headers only.
    const operation = byMethod[req.method === 'HEAD' ? 'GET' : req.method];
    if (!operation) throw new MethodNotAllowed(`${req.method} does not name an operation here`);
    const target = collection ? `contexts/${p.contextId}/subjects` : `contexts/${p.contextId}/subjects/${p.subjectId}`;
    return answerCheck(core, req, res, operation, target, p.contextId, p.subjectId);
  });
  return router;
}
