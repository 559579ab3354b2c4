import fc from 'fast-check';
import { InvalidFilter } from '../../common/src/errors';
import { COMPARE_OPS, filterAttributes, formatFilter, type FilterNode } from '../../server/src/subjects/filter/ast';
import { FILTER_LIMITS, parseFilter } from '../../server/src/subjects/filter/parse';

const WRITE_ONLY = new Set(['password', 'secretAnswer']);
const readable = (attr: string) => !WRITE_ONLY.has(attr);
const parse = (text: string) => parseFilter(text, readable);
const canon = (text: string) => formatFilter(parse(text));

function parseError(text: string): InvalidFilter {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof InvalidFilter) return e;
    throw e;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseFilter: accepted filters', () => {
  test.each<[string, string]>([
    ['mail eq "j@x.org"', 'mail eq "j@x.org"'],
    ['mail ne "x"', 'mail ne "x"'],
    ['mail co "x"', 'mail co "x"'],
    ['mail sw "x"', 'mail sw "x"'],
    ['mail ew "x"', 'mail ew "x"'],
    ['mail gt "x"', 'mail gt "x"'],
    ['mail ge "x"', 'mail ge "x"'],
    ['mail lt "x"', 'mail lt "x"'],
    ['mail le "x"', 'mail le "x"'],
    ['modified GT "2011-05-13T04:42:34Z" and sn LE "m"', '(modified gt "2011-05-13T04:42:34Z" and sn le "m")'],
    ['mail pr', 'mail pr'],
    // case-insensitive operators and keywords
    ['mail EQ "x"', 'mail eq "x"'],
    ['mail Sw "x" AND roles PR Or NOT (sn eW "y")', '((mail sw "x" and roles pr) or not (sn ew "y"))'],
    ['nOt (a pr)', 'not (a pr)'],
    // precedence: not > and > or; and/or left-associative
    ['a pr or b pr and c pr', '(a pr or (b pr and c pr))'],
    ['a pr and b pr or c pr', '((a pr and b pr) or c pr)'],
    ['a pr or b pr or c pr', '((a pr or b pr) or c pr)'],
    ['a pr and b pr and c pr', '((a pr and b pr) and c pr)'],
    ['not (a pr) and b pr', '(not (a pr) and b pr)'],
    ['not (a pr) or b pr and not (c pr)', '(not (a pr) or (b pr and not (c pr)))'],
    ['a pr and not (b pr or c pr)', '(a pr and not ((b pr or c pr)))'],
    // parentheses
    ['(a pr or b pr) and c pr', '((a pr or b pr) and c pr)'],
    ['a pr and (b pr or c pr)', '(a pr and (b pr or c pr))'],
    ['((((a pr))))', 'a pr'],
    ['not ((a pr))', 'not (a pr)'],
    ['not(not(a pr))', 'not (not (a pr))'],
    // whitespace
    ['  a\teq\n"x"\r\n ', 'a eq "x"'],
    ['(a pr)and(b pr)', '(a pr and b pr)'],
    ['a eq"x"or b pr', '(a eq "x" or b pr)'],
    // attribute names: case kept, - _ digits allowed, uniqueId, and a name that is also a keyword
    ['Mail eq "x"', 'Mail eq "x"'],
    ['x-y_z9 pr', 'x-y_z9 pr'],
    ['uniqueId sw "j"', 'uniqueId sw "j"'],
    ['not eq "x"', 'not eq "x"'],
    ['not pr and not (not pr)', '(not pr and not (not pr))'],
    // true / false become strings
    ['disabled eq true', 'disabled eq "true"'],
    ['disabled ne FALSE', 'disabled ne "false"'],
    // strings
    ['name eq ""', 'name eq ""'],
    ['name eq "Zoë 日本 😀"', 'name eq "Zoë 日本 😀"'],
    ['name co "%_\'"', 'name co "%_\'"'],
  ])('%s', (text, expected) => {
    expect(canon(text)).toBe(expected);
  });

  test('builds the discriminated-union tree', () => {
    expect(parse('not (a eq "1") and (b pr or uniqueId co "x")')).toEqual<FilterNode>({
      op: 'and',
      left: { op: 'not', expr: { op: 'eq', attr: 'a', value: '1' } },
      right: { op: 'or', left: { op: 'pr', attr: 'b' }, right: { op: 'co', attr: 'uniqueId', value: 'x' } },
    });
  });

  test('decodes JSON escapes in strings', () => {
    const node = parse('a eq "q\\"uote \\\\ \\/ \\b\\f\\n\\r\\t \\u00E9 \\ud83d\\ude00 \\u002A"');
    expect(node).toEqual({ op: 'eq', attr: 'a', value: 'q"uote \\ / \b\f\n\r\t é 😀 *' });
  });

  test('uniqueId is always readable and not passed to isReadable', () => {
    const seen: string[] = [];
    parseFilter('uniqueId eq "x" or mail pr', (a) => {
      seen.push(a);
      return true;
    });
    expect(seen).toEqual(['mail']);
    expect(parseFilter('uniqueId pr', () => false)).toEqual({ op: 'pr', attr: 'uniqueId' });
  });

  test('filterAttributes lists each attribute once, in order of first use', () => {
    expect(filterAttributes(parse('a pr and (b eq "x" or a sw "y") and not (uniqueId eq "z" or c co "q")'))).toEqual([
      'a',
      'b',
      'uniqueId',
      'c',
    ]);
  });
});

describe('parseFilter: errors', () => {
  test.each<[string, RegExp, number]>([
    ['', /the filter is empty/, 0],
    [' \t ', /the filter is empty/, 0],
    ['mail', /expected an operator \(eq, ne, co, sw, ew, gt, ge, lt, le or pr\) after attribute "mail", found the end of the filter/, 4],
    ['mail "x"', /expected an operator .* found the string "x"/, 5],
    ['mail eq', /expected a JSON string value \(in double quotes\) after "eq", found the end of the filter/, 7],
    ['mail like "x"', /unknown operator "like" after attribute "mail"/, 5],
    ['mail gt 42', /numbers are not supported/, 8],
    ['name.givenName gt "x"', /sub-attributes are not supported \("name\.…"\); use a simple attribute name/, 4],
    ['emails[type eq "work" and value co "@example.com"]', /value paths are not supported \("emails\[…\]"\)/, 6],
    ['emails [type eq "work"]', /value paths are not supported/, 7],
    ['urn:ietf:params:scim:schemas:core:2.0:User:name.givenName pr', /schema-qualified attribute names are not supported \("urn:…"\)/, 3],
    ['mail pr and meta.lastModified gt "2011-05-13T04:42:34Z"', /sub-attributes are not supported \("meta\.…"\)/, 16],
    ['mail eq User', /expected a JSON string value \(in double quotes\) after "eq", found "User"/, 8],
    ['mail eq "x"]', /unbalanced "\]"/, 11],
    ['mail eq 42', /numbers are not supported as comparison values; write the value as a JSON string, e\.g\. "42"/, 8],
    ['mail eq -1.5e3', /numbers are not supported.*"-1\.5e3"/, 8],
    ['mail eq null', /null is not supported as a comparison value; .* not \(mail pr\)/, 8],
    ['mail eq foo', /expected a JSON string value .* found "foo"/, 8],
    ["mail eq 'x'", /unexpected character "'" \(U\+0027\)/, 8],
    ['mail eq "x', /unterminated string/, 8],
    ['mail eq "x\\', /unterminated string/, 8],
    ['mail eq "a\\qb"', /invalid escape sequence "\\q"/, 10],
    ['mail eq "\\u12"', /invalid \\u escape: expected four hexadecimal digits/, 9],
    ['mail eq "\\u0000"', /NUL characters/, 9],
    ['mail eq "a\tb"', /control character U\+0009 must be escaped/, 10],
    ['mail eq "\\ud800x"', /unpaired UTF-16 surrogate/, 8],
    ['mail eq "\udc00"', /unpaired UTF-16 surrogate/, 8],
    ['name.givenName eq "x"', /sub-attributes are not supported/, 4],
    ['emails[type eq "work"]', /value paths are not supported/, 6],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x"', /schema-qualified attribute names are not supported/, 3],
    ['(mail pr', /expected "\)" to close the "\(" at position 0, found the end of the filter/, 8],
    ['a pr and (b pr or (c pr)', /expected "\)" to close the "\(" at position 9/, 24],
    ['mail pr)', /unbalanced "\)"/, 7],
    ['()', /expected an attribute name, "\(" or "not", found "\)"/, 1],
    ['mail pr and', /unexpected end of the filter: expected an attribute name, "\(" or "not"/, 11],
    ['mail pr or or b pr', /unknown operator "b" after attribute "or"; expected eq, ne, co, sw, ew, gt, ge, lt, le or pr/, 14],
    ['mail pr mail pr', /expected "and", "or" or the end of the filter, found "mail"/, 8],
    ['mail pr "x"', /expected "and", "or" or the end of the filter, found the string "x"/, 8],
    ['mail eq "x" && b pr', /unexpected character "&"/, 12],
    ['not mail pr', /"not" must be followed by a parenthesised filter, e\.g\. not \(mail pr\); found "mail"/, 4],
    ['not', /"not" must be followed by a parenthesised filter.*found the end of the filter/, 3],
    ['"mail" eq "x"', /expected an attribute name, "\(" or "not", found the string "mail"/, 0],
    ['1mail eq "x"', /expected an attribute name, found the number 1; attribute names start with a letter/, 0],
    ['_mail pr', /unexpected character "_"/, 0],
    ['mail pr and é pr', /unexpected character "é" \(U\+00E9\)/, 12],
    ['mail eq "x" and \u0007', /unexpected character U\+0007/, 16],
    ['password eq "x"', /attribute "password" is unknown or not readable and cannot be used in a filter/, 0],
    ['mail pr or password pr', /attribute "password"/, 11],
    ['mail pr and (x pr or not (secretAnswer co "a"))', /attribute "secretAnswer"/, 26],
  ])('%j', (text, message, position) => {
    const e = parseError(text);
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_filter');
    expect(e.message).toMatch(message);
    expect(e.message).toMatch(new RegExp(`\\(at position ${position}\\)$`));
    expect(e.extensions).toEqual({ position });
    expect(e.errors).toEqual([{ path: 'filter', message: e.message }]);
  });

  test('write-only attributes are refused even when only tested for presence', () => {
    expect(parseError('not (password pr)').message).toBe(
      'attribute "password" is unknown or not readable and cannot be used in a filter (at position 5)',
    );
  });

  test('the first error in the text is the one reported', () => {
    expect(parseError('a.b gt "x" and b eq "\\q"').message).toMatch(/sub-attributes/);
  });
});

describe('parseFilter: abuse limits', () => {
  test('limits are as specified', () => {
    expect(FILTER_LIMITS).toEqual({ maxLength: 2048, maxDepth: 32, maxComparisons: 64 });
  });

  test('length: 2048 characters pass, 2049 are refused before parsing', () => {
    const body = (n: number) => `mail eq "${'x'.repeat(n - 10)}"`;
    expect(body(2048)).toHaveLength(2048);
    expect(parse(body(2048))).toMatchObject({ op: 'eq' });
    const e = parseError(body(2049));
    expect(e.message).toBe('filter too long: 2049 characters (maximum 2048) (at position 2048)');
    // refused on length even if it would not parse at all
    expect(parseError('('.repeat(5000)).message).toMatch(/filter too long: 5000 characters/);
  });

  test('nesting depth: 32 parentheses pass, 33 are refused at the offending "("', () => {
    const nest = (n: number) => `${'('.repeat(n)}a pr${')'.repeat(n)}`;
    expect(parse(nest(32))).toEqual({ op: 'pr', attr: 'a' });
    const e = parseError(nest(33));
    expect(e.message).toBe('filter nested too deeply (maximum depth 32) (at position 32)');
  });

  test('nesting depth counts not ( … ) as a level', () => {
    const nest = (n: number) => `${'not ('.repeat(n)}a pr${')'.repeat(n)}`;
    expect(parse(nest(32))).toMatchObject({ op: 'not' });
    expect(parseError(nest(33)).message).toBe('filter nested too deeply (maximum depth 32) (at position 164)');
    // sequential (not nested) groups do not add up
    expect(parse(Array.from({ length: 40 }, () => '((a pr))').join(' or '))).toMatchObject({ op: 'or' });
  });

  test('comparisons: 64 pass, the 65th is refused at its position', () => {
    const chain = (n: number) => Array.from({ length: n }, () => 'a pr').join(' and ');
    expect(parse(chain(64))).toMatchObject({ op: 'and' });
    expect(parseError(chain(65)).message).toBe('too many comparisons in the filter (maximum 64) (at position 576)');
    expect(parseError(`${chain(64)} or b eq "x"`).message).toMatch(/too many comparisons/);
  });
});

describe('parseFilter: properties', () => {
  const attr = fc.constantFrom('a', 'mail', 'roles', 'uniqueId', 'x-y_1', 'not', 'and', 'or', 'pr', 'eq');
  const value = fc.string({ unit: 'binary', maxLength: 8 }).filter((s) => !s.includes('\u0000'));
  const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
    fc.record({ op: fc.constantFrom(...COMPARE_OPS), attr, value }),
    fc.record({ op: fc.constant('pr' as const), attr }),
  );
  const tree: fc.Memo<FilterNode> = fc.memo((n) =>
    n <= 1
      ? leaf
      : fc.oneof(
          leaf,
          fc.record({ op: fc.constantFrom('and' as const, 'or' as const), left: tree(n - 1), right: tree(n - 1) }),
          fc.record({ op: fc.constant('not' as const), expr: tree(n - 1) }),
        ),
  );

  test('formatFilter output parses back to the same tree', () => {
    fc.assert(
      fc.property(tree(6), (node) => {
        const text = formatFilter(node);
        fc.pre(text.length <= FILTER_LIMITS.maxLength);
        expect(parseFilter(text, () => true)).toEqual(node);
      }),
      { numRuns: 500 },
    );
  });

  test('arbitrary text either parses or fails with InvalidFilter', () => {
    const alphabet = fc.constantFrom(...'ab ()"\\\'.[]:-_1 eq ne co sw pr and or not true null'.split(''), ' and ', ' not (', ' eq "', '\u00e9', '\ud800');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: alphabet, maxLength: 60 }), fc.string({ maxLength: 60 })), (text) => {
        try {
          parseFilter(text, () => true);
        } catch (e) {
          expect(e).toBeInstanceOf(InvalidFilter);
          expect((e as InvalidFilter).message).toMatch(/\(at position \d+\)$/);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
