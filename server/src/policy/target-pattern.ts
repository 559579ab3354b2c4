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

/** A template segment, split once at compile time: literal text and the names of session variables. */
type TemplatePart = { text: string } | { variable: string };
type Segment = { kind: 'any' } | { kind: 'rest' } | { kind: 'literal'; text: string } | { kind: 'template'; parts: TemplatePart[] };

function templateParts(segment: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const match of segment.matchAll(VARIABLE)) {
    if (match.index! > last) parts.push({ text: segment.slice(last, match.index) });
    parts.push({ variable: match[1] });
    last = match.index! + match[0].length;
  }
  if (last < segment.length) parts.push({ text: segment.slice(last) });
  return parts;
}

/** The segment's text for this session, or undefined when the session lacks a variable. */
function expand(parts: TemplatePart[], session: Session): string | undefined {
  let text = '';
  for (const part of parts) {
    const value = 'text' in part ? part.text : variableValue(part.variable, session);
    if (value === undefined) return undefined;
    text += value;
  }
  return text;
}

export function compileTarget(pattern: string): TargetMatcher {
  const texts = pattern.split('/');
  const segments: Segment[] = texts.map((text, i) => {
    if (text === '.') return { kind: 'any' };
    if (text === '*' && i === texts.length - 1) return { kind: 'rest' };
    const parts = templateParts(text);
    return parts.some((p) => 'variable' in p) ? { kind: 'template', parts } : { kind: 'literal', text };
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
        const text = expand(segment.parts, session);
        if (text === undefined || target[i] !== text) return false;
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
