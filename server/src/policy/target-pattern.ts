import type { Session } from '../sessions/session';

/**
 * A compiled policy target. `.` matches one segment, a final `*` one or more remaining segments
 * (a lone `*` everything); `${session.principal.uniqueId}`, `${session.principal.contextId}` and
 * `${session.clientId}` are replaced by the session's values and then compared as literal text,
 * never read as patterns. A variable the session lacks (an ANON session has no principal) makes
 * the pattern match nothing.
 */
export type TargetMatcher = (target: string[], session: Session) => boolean;

const VARIABLE = /\$\{(session\.principal\.uniqueId|session\.principal\.contextId|session\.clientId)\}/g;

function variableValue(name: string, session: Session): string | undefined {
  switch (name) {
    case 'session.principal.uniqueId':
      return session.principal?.uniqueId;
    case 'session.principal.contextId':
      return session.principal?.contextId;
    case 'session.clientId':
      return session.clientId || undefined;
  }
  return undefined;
}

type Segment = { kind: 'any' } | { kind: 'rest' } | { kind: 'literal'; text: string } | { kind: 'template'; text: string };

export function compileTarget(pattern: string): TargetMatcher {
  const parts = pattern.split('/');
  const segments: Segment[] = parts.map((part, i) => {
    if (part === '.') return { kind: 'any' };
    if (part === '*' && i === parts.length - 1) return { kind: 'rest' };
    VARIABLE.lastIndex = 0;
    return VARIABLE.test(part) ? { kind: 'template', text: part } : { kind: 'literal', text: part };
  });
  const endsWithRest = segments.at(-1)?.kind === 'rest';
  const fixed = endsWithRest ? segments.length - 1 : segments.length;
  return (target, session) => {
    if (endsWithRest ? target.length <= fixed && fixed > 0 : target.length !== fixed) return false;
    for (let i = 0; i < fixed; i++) {
      const segment = segments[i];
      if (segment.kind === 'any') continue;
      if (segment.kind === 'literal') {
        if (target[i] !== segment.text) return false;
        continue;
      }
      if (segment.kind === 'template') {
        let missing = false;
        const text = segment.text.replace(VARIABLE, (_m, name: string) => {
          const value = variableValue(name, session);
          if (value === undefined) missing = true;
          return value ?? '';
        });
        if (missing || target[i] !== text) return false;
      }
    }
    return true;
  };
}

/**
 * A matcher of literal segments (`null` = any one segment), optionally followed by one or more
 * further segments. For targets built from configuration text that must not be read as a pattern.
 */
export function literalTarget(parts: ReadonlyArray<string | null>, below = false): TargetMatcher {
  return (target) => {
    if (below ? target.length <= parts.length : target.length !== parts.length) return false;
    return parts.every((part, i) => part === null || target[i] === part);
  };
}
