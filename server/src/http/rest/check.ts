import type { Request, Response } from 'express';
import { InvalidOperation } from '../../../../common/src/errors';
import type { WireDocument } from '../../../../common/src/wire/xml';
import { OPERATIONS, type Operation } from '../../config/types';
import type { Core } from '../../core';
import { decide } from '../authorize';
import { sendDocument } from '../respond';
import { CHECK_METHOD, type Resource } from './resources';

/** Operations that address a collection or one subject (the seed's 4.1 "path shape"). */
const FITS: Partial<Record<Resource['kind'], readonly Operation[]>> = {
  subjects: ['CREATE', 'SEARCH'],
  subject: ['READ', 'UPDATE', 'DELETE'],
};

/**
 * Which operation a request asks to check, or undefined when it is an ordinary request:
 * form 1 (HEAD + X-Operation), forms 2 and 3 (`isAllowed` in any letter case). Form 4 arrives
 * through the `authz` routes with its operation already known.
 */
export function checkedOperation(req: Request, resource: Resource): Operation | undefined {
  let asked: string | undefined;
  let form: 1 | 2 | 3;
  const names = Object.keys(req.query).filter((name) => name.toLowerCase() === 'isallowed');
  if (names.length) {
    const values = names.flatMap((name) => {
      const v = (req.query as Record<string, unknown>)[name];
      return Array.isArray(v) ? v : [v];
    });
    if (values.length !== 1 || typeof values[0] !== 'string') throw new InvalidOperation('isAllowed must be given once');
    asked = values[0];
    form = req.method === 'GET' ? 3 : 2;
  } else if (req.method === 'HEAD' && req.headers['x-operation'] !== undefined) {
    asked = String(req.headers['x-operation']);
    form = 1;
  } else {
    return undefined;
  }
  const operation = OPERATIONS.find((op) => op === asked);
  if (!operation) throw new InvalidOperation(`unknown operation "${asked.slice(0, 32)}"; use one of ${OPERATIONS.join(', ')}`);
  if (!FITS[resource.kind]?.includes(operation)) {
    throw new InvalidOperation(`${operation} does not fit ${resource.kind === 'subject' ? 'a subject' : 'this resource'}`);
  }
  if (form === 2 && req.method !== CHECK_METHOD[operation]) {
    throw new InvalidOperation(`${operation} is checked with ${CHECK_METHOD[operation]} or GET, not ${req.method}`);
  }
  return operation;
}

/**
 * Answers a check: exactly what the real request would meet at authorization, never performing
 * it (no write, no side effect, whatever the method or body).
 */
export async function answerCheck(core: Core, req: Request, res: Response, operation: Operation, target: string, contextId: string, subjectId?: string): Promise<void> {
  const state = req.svc;
  const result = await decide(core, state, operation, target);
  const allowed = result.decision === 'ALLOW';
  const privileged = state.session.type === 'SYSTEM' || (await core.rolesOf(state.session)).includes('admin');
  const body: Record<string, unknown> = {
    decision: result.decision,
    operation,
    resource: target,
    sessionType: state.session.type === 'INTERNAL' ? 'ANON' : state.session.type,
    reason: privileged ? result.policy : allowed ? 'allowed' : 'denied',
  };
  if (subjectId !== undefined) {
    const readTarget = `contexts/${contextId}/subjects/${subjectId}`;
    const mayRead = operation === 'READ' ? allowed : (await core.pdp.decide({ session: state.session, roles: await core.rolesOf(state.session), operation: 'READ', target: readTarget })).decision === 'ALLOW';
    if (mayRead) body.exists = (await core.subjects.context(contextId).store.get(contextId, subjectId)) !== undefined;
  }
  res.setHeader('X-Svc-Decision', result.decision);
  res.setHeader('Cache-Control', 'no-store');
  if (!allowed) {
    const code = state.sessionExpired ? 'session_expired' : 'access_denied';
    res.setHeader('WWW-Authenticate', `SvcSession realm="svc", error="${code}"`);
  }
  sendDocument(req, res, allowed ? 200 : core.config.global['authz.denyStatus'], body as WireDocument, { xmlRoot: 'check' });
}
