import { MethodNotAllowed } from '../../../../common/src/errors';
import type { Operation } from '../../config/types';
import { answerCheck } from '../checks';
import { step, type Step } from '../exchange';
import { contextExists, pathIds } from '../rest-resource';
import type { HttpServices } from '../services';

// HEAD is GET without a body: the same question, answered with headers only.
const ON_COLLECTION: Record<string, Operation | undefined> = { POST: 'CREATE', GET: 'SEARCH', HEAD: 'SEARCH' };
const ON_SUBJECT: Record<string, Operation | undefined> = { GET: 'READ', HEAD: 'READ', PUT: 'UPDATE', DELETE: 'DELETE' };

/**
 * Form 4 of the check (SPEC section 6): the keyword `authz` replaces `contexts`, the method names
 * the operation, and the answer is the check's; nothing is performed and no body is read.
 */
export function authzCheck(s: Pick<HttpServices, 'decisions' | 'subjects'>, authenticate: Step, on: 'collection' | 'subject'): { path: string; steps: Step[] } {
  const operations = on === 'collection' ? ON_COLLECTION : ON_SUBJECT;
  return {
    path: on === 'collection' ? '/authz/:contextId/subjects' : '/authz/:contextId/subjects/:subjectId',
    steps: [
      pathIds,
      authenticate,
      contextExists(s.subjects),
      step('answerCheck', (x) => {
        const operation = operations[x.req.method];
        if (!operation) throw new MethodNotAllowed(`${x.req.method} does not name an operation here`);
        const { contextId, subjectId } = x.ids;
        return answerCheck(s.decisions, x, operation, subjectId === undefined ? `contexts/${contextId}/subjects` : `contexts/${contextId}/subjects/${subjectId}`);
      }),
    ],
  };
}
