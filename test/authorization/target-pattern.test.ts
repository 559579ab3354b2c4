import { compileTarget } from '../../server/src/policy/target-pattern';
import type { Session } from '../../server/src/sessions/session';

const session = (uniqueId: string | null, clientId = 'svc-web'): Session => ({
  handle: 'h',
  type: uniqueId ? 'USER' : 'ANON',
  clientId,
  principal: uniqueId ? { uniqueId, contextId: 'employees' } : null,
  level: uniqueId ? 2 : 0,
  authenticator: 'test',
  created: 0,
  lastAccess: 0,
  stateless: !uniqueId,
});

const matches = (pattern: string, target: string, s: Session) => compileTarget(pattern)(target.split('/'), s);

test.each([
  ['contexts/./subjects', 'contexts/employees/subjects', session('bob'), true],
  ['contexts/./subjects', 'contexts/employees/subjects/bob', session('bob'), false],
  ['contexts/employees/subjects/*', 'contexts/employees/subjects/bob/password', session('bob'), true],
  ['contexts/employees/subjects/*', 'contexts/employees/subjects', session('bob'), false],
  ['*', 'config', session('bob'), true],
  ['contexts/${session.principal.contextId}/subjects/${session.principal.uniqueId}', 'contexts/employees/subjects/bob', session('bob'), true],
  ['contexts/${session.principal.contextId}/subjects/${session.principal.uniqueId}', 'contexts/employees/subjects/alice', session('bob'), false],
  // A variable the session lacks matches nothing.
  ['contexts/./subjects/${session.principal.uniqueId}', 'contexts/employees/subjects/', session(null), false],
  // Substituted values are literal text, never patterns.
  ['contexts/./subjects/${session.principal.uniqueId}', 'contexts/employees/subjects/x', session('.'), false],
  ['contexts/./subjects/${session.principal.uniqueId}', 'contexts/employees/subjects/anything', session('*'), false],
  // Text around a variable in one segment.
  ['clients/app-${session.clientId}', 'clients/app-svc-web', session('bob'), true],
  ['clients/app-${session.clientId}', 'clients/svc-web', session('bob'), false],
])('%s against %s', (pattern, target, s, expected) => {
  expect(matches(pattern, target, s)).toBe(expected);
});
