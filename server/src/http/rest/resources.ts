import type { Operation } from '../../config/types';

/**
 * Every REST resource in one table: its path, the operation each method performs, and the policy
 * target built from the resolved parameters (SPEC section 6). Both mounts of the router
 * (`{base}/resources` and `{base}`) resolve here, so both give the same target.
 */
export type ResourceKind = 'contexts' | 'context' | 'subjects' | 'subject' | 'password' | 'lockout' | 'session';

export interface Resource {
  kind: ResourceKind;
  path: string;
  /** The operation each method performs; a method not listed is 405. */
  methods: Partial<Record<'GET' | 'POST' | 'PUT' | 'DELETE', Operation>>;
  target(params: Record<string, string>): string;
}

export const RESOURCES: Resource[] = [
  { kind: 'contexts', path: '/contexts', methods: { GET: 'SEARCH' }, target: () => 'contexts' },
  { kind: 'context', path: '/contexts/:contextId', methods: { GET: 'READ' }, target: (p) => `contexts/${p.contextId}` },
  {
    kind: 'subjects',
    path: '/contexts/:contextId/subjects',
    methods: { POST: 'CREATE', GET: 'SEARCH' },
    target: (p) => `contexts/${p.contextId}/subjects`,
  },
  {
    kind: 'subject',
    path: '/contexts/:contextId/subjects/:subjectId',
    methods: { GET: 'READ', PUT: 'UPDATE', DELETE: 'DELETE' },
    target: (p) => `contexts/${p.contextId}/subjects/${p.subjectId}`,
  },
  {
    kind: 'password',
    path: '/contexts/:contextId/subjects/:subjectId/password',
    methods: { PUT: 'UPDATE' },
    target: (p) => `contexts/${p.contextId}/subjects/${p.subjectId}/password`,
  },
  {
    // Lifting a lock changes the subject's state, so it is an UPDATE of its lockout, not a DELETE.
    kind: 'lockout',
    path: '/contexts/:contextId/subjects/:subjectId/lockout',
    methods: { DELETE: 'UPDATE' },
    target: (p) => `contexts/${p.contextId}/subjects/${p.subjectId}/lockout`,
  },
  { kind: 'session', path: '/session', methods: { GET: 'READ' }, target: () => 'session' },
  { kind: 'session', path: '/sessioninfo', methods: { GET: 'READ' }, target: () => 'session' },
];
