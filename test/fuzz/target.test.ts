/**
 * The policy target matcher (target-pattern.ts) against a model written from its documentation:
 * `.` is one segment, a final `*` one or more, variables are the session's values compared as
 * literal text, a missing variable matches nothing.
 */
import fc from 'fast-check';
import { compileTarget } from '../../server/src/policy/target-pattern';
import type { Session } from '../../server/src/sessions/session';
import { runs } from './runs';

const VARIABLES = ['${session.principal.uniqueId}', '${session.principal.contextId}', '${session.clientId}'];
/** Segment text built from the characters that could confuse a matcher. */
const word = fc.string({ unit: fc.constantFrom('a', 'b', '.', '*', '$', '{', '}', '-'), maxLength: 3 });
const patternSegment = fc.oneof(word, fc.constant('.'), fc.constant('*'), fc.constantFrom(...VARIABLES), fc.tuple(word, fc.constantFrom(...VARIABLES)).map(([w, v]) => w + v));
const session = fc.record({
  uniqueId: fc.option(word, { nil: null }),
  contextId: word,
  clientId: word,
});
type Vars = { uniqueId: string | null; contextId: string; clientId: string };

function asSession(v: Vars): Session {
  return { handle: 'h', type: v.uniqueId === null ? 'ANON' : 'USER', clientId: v.clientId, principal: v.uniqueId === null ? null : { uniqueId: v.uniqueId, contextId: v.contextId }, level: 2, authenticator: 't', created: 0, lastAccess: 0, stateless: false };
}

/** A segment with the session's values in place of its variables (what a matching target holds). */
const expand = (segment: string, v: Vars) =>
  segment
    .replaceAll('${session.principal.uniqueId}', v.uniqueId ?? '')
    .replaceAll('${session.principal.contextId}', v.contextId)
    .replaceAll('${session.clientId}', v.clientId);

/** The documented meaning, segment by segment. */
function model(pattern: string[], target: string[], v: Vars): boolean {
  const rest = pattern.length > 0 && pattern[pattern.length - 1] === '*';
  const fixed = rest ? pattern.length - 1 : pattern.length;
  if (rest ? target.length <= fixed && fixed > 0 : target.length !== fixed) return false;
  return pattern.slice(0, fixed).every((segment, i) => {
    if (segment === '.') return true;
    let missing = false;
    const text = segment.replace(/\$\{(session\.principal\.uniqueId|session\.principal\.contextId|session\.clientId)\}/g, (_, name: string) => {
      const value = name === 'session.clientId' ? v.clientId || null : v.uniqueId === null ? null : name === 'session.principal.uniqueId' ? v.uniqueId : v.contextId;
      if (value === null) missing = true;
      return value ?? '';
    });
    return !missing && text === target[i];
  });
}

test(`the matcher agrees with the model on random patterns, targets and sessions (${runs(3000)} runs)`, () => {
  const pattern = fc.array(patternSegment, { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(pattern, session, fc.array(word, { minLength: 1, maxLength: 5 }), fc.boolean(), (p, v, randomTarget, fromPattern) => {
      // Half the targets are built from the pattern itself, so that matches are not rare.
      const target = fromPattern ? p.map((s, i) => (s === '.' || s === '*' ? (randomTarget[i] ?? 'x') : expand(s, v))) : randomTarget;
      expect(compileTarget(p.join('/'))(target, asSession(v))).toBe(model(p, target, v));
    }),
    { numRuns: runs(3000) },
  );
});
