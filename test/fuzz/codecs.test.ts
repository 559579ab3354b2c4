/**
 * Properties of the wire codecs (common/src/wire): every document survives a round trip, and any
 * text at all is either a document or a MalformedBody (never another error, never a hang).
 */
import fc from 'fast-check';
import { MalformedBody } from '../../common/src/errors';
import { FORBIDDEN_NAMES, MAX_DEPTH, parseJson } from '../../common/src/wire/json';
import { parseXml, toXml, type WireDocument, type WireValue } from '../../common/src/wire/xml';
import { runs } from './runs';

/** A value as an attribute can hold it: no control characters (attributes.ts refuses them). */
// eslint-disable-next-line no-control-regex
const text = fc.string({ unit: 'grapheme', maxLength: 12 }).filter((s) => !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(s));
/** An element name as the definition allows; `value` is the list item's name, so it is no key. */
const name = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9._-]{0,8}$/).filter((k) => !FORBIDDEN_NAMES.has(k) && k !== 'value' && !/^xml/i.test(k));

const tree = fc.letrec<{ value: WireValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.array(tie('value'), { minLength: 1, maxLength: 3 }),
    fc.dictionary(name, tie('value'), { minKeys: 1, maxKeys: 3 }),
  ),
})).value;

const document = fc.tuple(name, fc.dictionary(name, tree, { minKeys: 1, maxKeys: 4 })).map(([root, body]): WireDocument => ({ [root]: body }));

/** Only a MalformedBody may escape the parser. */
function refusesCleanly(parse: (s: string) => unknown, input: string): void {
  try {
    parse(input);
  } catch (error) {
    if (!(error instanceof MalformedBody)) throw error;
    expect(error.message).not.toMatch(/\n\s+at |Unexpected token/);
  }
}

/** Small edits to a valid document: the shapes a fuzzer finds beyond random text. */
const mutated = (valid: fc.Arbitrary<string>) =>
  fc.tuple(valid, fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 }), fc.string({ maxLength: 4, unit: 'binary' })), { maxLength: 4 })).map(([base, edits]) =>
    edits.reduce((s, [at, cut, insert]) => s.slice(0, at % (s.length + 1)) + insert + s.slice((at % (s.length + 1)) + cut), base),
  );

describe('JSON', () => {
  test(`round trip: parseJson(JSON.stringify(d)) is d (${runs(300)} runs)`, () => {
    fc.assert(fc.property(document, (doc) => expect(parseJson(JSON.stringify(doc))).toEqual(doc)), { numRuns: runs(300) });
  });
  test(`any text is a document or a MalformedBody (${runs(1000)} runs)`, () => {
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), mutated(document.map((d) => JSON.stringify(d))), mutated(fc.json())), (s) => refusesCleanly(parseJson, s)), { numRuns: runs(1000) });
  });
  test('nesting just past the limit is a MalformedBody, not a stack overflow', () => {
    fc.assert(fc.property(fc.integer({ min: MAX_DEPTH + 1, max: 100_000 }), fc.constantFrom('[', '{"a":'), (depth, open) => {
      expect(() => parseJson(open.repeat(depth))).toThrow(MalformedBody);
    }), { numRuns: runs(20) });
  });
});

describe('XML', () => {
  test(`round trip: parseXml(toXml(d)) is d (${runs(300)} runs)`, () => {
    fc.assert(fc.property(document, (doc) => expect(parseXml(toXml(doc))).toEqual(doc)), { numRuns: runs(300) });
  });
  test(`any text is a document or a MalformedBody (${runs(1000)} runs)`, () => {
    fc.assert(fc.property(fc.oneof(fc.string({ unit: 'binary' }), mutated(document.map(toXml))), (s) => refusesCleanly(parseXml, s)), { numRuns: runs(1000) });
  });
});
