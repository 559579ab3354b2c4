/**
 * The SCIM side of svc's one filter parser (RFC 7644 section 3.4.2.2): every filter and PATCH path of
 * test/fixtures/scim/filters-and-paths.json (RFC 7644, Entra ID, Okta), every filter of the RFC
 * requests file, the trees they give, and the errors; the REST SEARCH's flat part is filter.test.ts.
 */
import fc from 'fast-check';
import { InvalidFilter } from '../../common/src/errors';
import { scimFixture } from '../helpers/scim-fixtures';
import {
  attrPathIs,
  COMPARE_OPS,
  formatScimFilter,
  isMetaAttr,
  META_CREATED,
  META_LAST_MODIFIED,
  metaInstant,
  sameAttrName,
  type AttrPath,
  type CompareOp,
  type ScimFilter,
} from '../../server/src/subjects/filter/ast';
import { FILTER_LIMITS, parseFilter, parseScimFilter, parseScimPath } from '../../server/src/subjects/filter/parse';

const paths = scimFixture<{
  rfc7644: { filters: Array<{ filter: string }>; patch_paths: Array<{ path: string }>; attribute_notation: Array<{ value: string }> };
  entra: { filters: Array<{ filter: string }>; patch_paths: Array<{ path: string }>; attribute_mapping_paths: { values: string[] }; dotted_keys_in_pathless_replace: string[] };
  okta: { filters: Array<{ filter: string }>; patch_paths: Array<{ path: string }> };
}>('filters-and-paths.json');
const requests = scimFixture<Array<{ name: string; filter?: string }>>('rfc7644-requests.json');

const canon = (text: string) => formatScimFilter(parseScimFilter(text));
const at = (text: string): AttrPath => {
  const m = /^(?:(.+):)?([^.:]+)(?:\.(.+))?$/.exec(text) as RegExpExecArray;
  return { text, name: m[2] as string, ...(m[1] ? { uri: m[1] } : {}), ...(m[3] ? { sub: m[3] } : {}) };
};

function scimError(run: () => unknown): InvalidFilter {
  try {
    run();
  } catch (e) {
    if (e instanceof InvalidFilter) return e;
    throw e;
  }
  throw new Error('expected an InvalidFilter');
}

/** The one filter of the fixtures that is not RFC 7644's grammar (its README says so). */
const SINGLE_QUOTED = "displayName sw 'Group'";

describe('parseScimFilter: the fixtures', () => {
  const all = [...paths.rfc7644.filters, ...paths.entra.filters, ...paths.okta.filters].map((f) => f.filter);

  test.each(all.filter((f) => f !== SINGLE_QUOTED))('%s parses, and its canonical text parses to the same tree', (text) => {
    const tree = parseScimFilter(text);
    expect(parseScimFilter(formatScimFilter(tree))).toEqual(tree);
  });

  test.each(requests.filter((r) => r.filter !== undefined).map((r) => [r.name, r.filter as string]))('rfc7644-requests %s', (_name, text) => {
    expect(() => parseScimFilter(text)).not.toThrow();
  });

  test("RFC 7644 section 3.7.1's single-quoted value is refused: not JSON", () => {
    const e = scimError(() => parseScimFilter(SINGLE_QUOTED));
    expect(e.message).toBe('unexpected character "\'" (U+0027); strings are written in double quotes (JSON) (at position 15)');
  });

  // RFC 7644 section 3.4.2.2 figure 2 and section 3.4.2.1, each with the tree svc reads.
  test.each<[string, string]>([
    ['(meta.resourceType eq User) or (meta.resourceType eq Group)', '(meta.resourceType eq "User" or meta.resourceType eq "Group")'],
    ['userName Eq "john"', 'userName eq "john"'],
    ['Username eq "john"', 'Username eq "john"'],
    ['userName eq "bjensen"', 'userName eq "bjensen"'],
    ['name.familyName co "O\'Malley"', 'name.familyName co "O\'Malley"'],
    ['urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"', 'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"'],
    ['title pr', 'title pr'],
    ['meta.lastModified gt "2011-05-13T04:42:34Z"', 'meta.lastModified gt "2011-05-13T04:42:34Z"'],
    ['meta.lastModified ge "2011-05-13T04:42:34Z"', 'meta.lastModified ge "2011-05-13T04:42:34Z"'],
    ['meta.lastModified lt "2011-05-13T04:42:34Z"', 'meta.lastModified lt "2011-05-13T04:42:34Z"'],
    ['meta.lastModified le "2011-05-13T04:42:34Z"', 'meta.lastModified le "2011-05-13T04:42:34Z"'],
    ['title pr and userType eq "Employee"', '(title pr and userType eq "Employee")'],
    ['title pr or userType eq "Intern"', '(title pr or userType eq "Intern")'],
    [
      'userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")',
      '(userType ne "Employee" and not ((emails co "example.com" or emails.value co "example.org")))',
    ],
    ['userType eq "Employee" and (emails.type eq "work")', '(userType eq "Employee" and emails.type eq "work")'],
    [
      'emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]',
      '(emails[(type eq "work" and value co "@example.com")] or ims[(type eq "xmpp" and value co "@foo.com")])',
    ],
    ['externalId eq jyoung', 'externalId eq "jyoung"'],
    ['emails[type eq "work"].value eq "user@contoso.com"', 'emails[(type eq "work" and value eq "user@contoso.com")]'],
    ['(userName pr)', 'userName pr'],
  ])('%s', (text, expected) => {
    expect(canon(text)).toBe(expected);
  });
});

describe('parseScimFilter: trees', () => {
  test('attribute paths: schema URN (up to the last ":"), name, sub-attribute, each as written', () => {
    expect(parseScimFilter('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName sw "J"')).toEqual<ScimFilter>({
      op: 'sw',
      attr: {
        text: 'urn:ietf:params:scim:schemas:core:2.0:User:name.givenName',
        uri: 'urn:ietf:params:scim:schemas:core:2.0:User',
        name: 'name',
        sub: 'givenName',
      },
      value: 'J',
    });
    expect(parseScimFilter('Meta.LastModified pr')).toEqual({ op: 'pr', attr: { text: 'Meta.LastModified', name: 'Meta', sub: 'LastModified' } });
  });

  test('a value path keeps its parent and its filter on sub-attribute names', () => {
    expect(parseScimFilter('userType eq "Employee" and emails[type eq "work" and not (value ew "@example.com")]')).toEqual<ScimFilter>({
      op: 'and',
      left: { op: 'eq', attr: at('userType'), value: 'Employee' },
      right: {
        op: 'valuePath',
        attr: at('emails'),
        filter: {
          op: 'and',
          left: { op: 'eq', attr: at('type'), value: 'work' },
          right: { op: 'not', expr: { op: 'ew', attr: at('value'), value: '@example.com' } },
        },
      },
    });
  });

  test("Entra ID's value path with a sub-attribute reads as one value meeting both", () => {
    expect(parseScimFilter('emails[type eq "work"].value pr')).toEqual<ScimFilter>({
      op: 'valuePath',
      attr: at('emails'),
      filter: { op: 'and', left: { op: 'eq', attr: at('type'), value: 'work' }, right: { op: 'pr', attr: at('value') } },
    });
  });

  test('values keep their JSON type', () => {
    const value = (text: string) => (parseScimFilter(`a eq ${text}`) as { value: unknown }).value;
    expect(value('"x"')).toBe('x');
    expect(value('true')).toBe(true);
    expect(value('FALSE')).toBe(false);
    expect(value('Null')).toBeNull();
    expect(value('42')).toBe(42);
    expect(value('-1.5e3')).toBe(-1500);
    expect(value('0')).toBe(0);
    expect(value('jyoung')).toBe('jyoung');
    // Unquoted values that start with a digit: a GUID, a timestamp; a whole number stays a number.
    expect(value('7f4bc1a3-285e-48ae-8202-5accb43efb0e')).toBe('7f4bc1a3-285e-48ae-8202-5accb43efb0e');
    expect(value('2011-05-13T04:42:34Z')).toBe('2011-05-13T04:42:34Z');
    expect(value('1e5')).toBe(100000);
    expect(canon('(externalId eq 0a1b) or a pr')).toBe('(externalId eq "0a1b" or a pr)');
    expect(value('"true"')).toBe('true');
  });

  test('every operator, in any letter case', () => {
    for (const op of COMPARE_OPS) {
      expect(parseScimFilter(`a ${op.toUpperCase()} "v"`)).toEqual({ op, attr: at('a'), value: 'v' });
    }
    expect(parseScimFilter('a Pr')).toEqual({ op: 'pr', attr: at('a') });
  });

  test('no space needed where tokens delimit themselves (RFC 7644 section 3.5.2.2 prints members[value eq"…"])', () => {
    expect(canon('members[value eq"2819c223"]and(a pr)')).toBe('(members[value eq "2819c223"] and a pr)');
  });

  test('sameAttrName and attrPathIs compare case-insensitively', () => {
    expect(sameAttrName('userName', 'USERNAME')).toBe(true);
    expect(sameAttrName('userName', 'userNames')).toBe(false);
    const p = (text: string) => (parseScimFilter(`${text} pr`) as { attr: AttrPath }).attr;
    expect(attrPathIs(p('Username'), 'userName')).toBe(true);
    expect(attrPathIs(p('EMAILS.Value'), 'emails', 'value')).toBe(true);
    expect(attrPathIs(p('emails.value'), 'emails')).toBe(false);
    expect(attrPathIs(p('emails'), 'emails', 'value')).toBe(false);
    const urn = 'urn:ietf:params:scim:schemas:core:2.0:User';
    expect(attrPathIs(p(`${urn.toUpperCase()}:userName`), 'username', undefined, urn)).toBe(true);
    expect(attrPathIs(p('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:userName'), 'userName', undefined, urn)).toBe(false);
    expect(attrPathIs(p('userName'), 'userName', undefined, urn)).toBe(true);
  });

  test('the attribute check sees each path and its value path, and refuses at its position', () => {
    const seen: string[] = [];
    parseScimFilter('userName eq "x" or emails[type eq "work"].value co "y"', {
      attribute: (path, parent) => {
        seen.push(parent ? `${parent.text}[${path.text}]` : path.text);
        return undefined;
      },
    });
    expect(seen).toEqual(['userName', 'emails', 'emails[type]', 'emails[value]']);
    const e = scimError(() =>
      parseScimFilter('userName eq "x" or nickName pr', { attribute: (path) => (sameAttrName(path.name, 'nickName') ? `no attribute "${path.text}"` : undefined) }),
    );
    expect(e.message).toBe('no attribute "nickName" (at position 19)');
    expect(e.extensions).toEqual({ position: 19 });
  });
});

describe('parseScimFilter: errors', () => {
  test.each<[string, RegExp, number]>([
    ['emails[type eq "work"', /expected "\]" to close the "\[" at position 6, found the end of the filter/, 21],
    ['emails[type eq "work")', /expected "\]" to close the "\[" at position 6, found "\)"/, 21],
    ['emails[type eq "work"]]', /unbalanced "\]"/, 22],
    ['emails[addresses[type pr]]', /value paths cannot be nested \(inside "emails\[…\]"\)/, 16],
    ['emails[emails.type pr]', /inside "emails\[…\]" name a sub-attribute of "emails" \(e\.g\. value\), without "\." or a schema URN/, 7],
    ['emails.value[type pr]', /a value path applies to a multi-valued attribute, not to the sub-attribute "emails\.value"/, 12],
    ['emails[type pr].', /expected a sub-attribute name of "emails" after "\]\."/, 16],
    ['emails[type pr].value', /expected an operator \(eq, ne, co, sw, ew, gt, ge, lt, le or pr\) after attribute "value"/, 21],
    ['emails[type pr] eq "x"', /expected "and", "or" or the end of the filter, found "eq"/, 16],
    ['emails[]', /expected an attribute name, "\(" or "not", found "\]"/, 7],
    ['name.givenName.x pr', /invalid attribute path "name\.givenName\.x"/, 0],
    ['urn:x:User: pr', /invalid attribute path "urn:x:User:"/, 0],
    ['name. pr', /invalid attribute path "name\."/, 0],
    ['a eq 01', /invalid number 01/, 5],
    ['a eq 1e999', /invalid number 1e999/, 5],
    ['a eq 1.', /invalid number 1\./, 5],
    ['a eq', /expected a value \(a JSON string, number, true, false or null\) after "eq", found the end of the filter/, 4],
    ['a gt (', /expected a value .* found "\("/, 5],
    ['a like "x"', /unknown operator "like" after attribute "a"; expected eq, ne, co, sw, ew, gt, ge, lt, le or pr/, 2],
    ['[type pr]', /expected an attribute name, "\(" or "not", found "\["/, 0],
  ])('%j', (text, message, position) => {
    const e = scimError(() => parseScimFilter(text));
    expect(e.code).toBe('invalid_filter');
    expect(e.message).toMatch(message);
    expect(e.extensions).toEqual({ position });
  });

  test('a value path counts as a level of nesting', () => {
    const nest = (n: number) => `${'('.repeat(n - 1)}emails[type pr]${')'.repeat(n - 1)}`;
    expect(parseScimFilter(nest(32))).toMatchObject({ op: 'valuePath' });
    expect(scimError(() => parseScimFilter(nest(33))).message).toBe('filter nested too deeply (maximum depth 32) (at position 38)');
  });

  test('the comparisons inside a value path count', () => {
    const inner = Array.from({ length: 64 }, () => 'type pr').join(' and ');
    expect(scimError(() => parseScimFilter(`emails[${inner}]`)).message).toMatch(/too many comparisons/);
    expect(parseScimFilter(`emails[${Array.from({ length: 63 }, () => 'type pr').join(' and ')}]`)).toMatchObject({ op: 'valuePath' });
  });

  test('the same text is refused by the REST SEARCH where it leaves the flat part of the grammar', () => {
    for (const text of ['emails[type eq "work"]', 'name.givenName eq "x"', 'urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x"', 'a eq 1', 'a eq null', 'a eq jyoung']) {
      expect(() => parseScimFilter(text)).not.toThrow();
      expect(() => parseFilter(text, () => true)).toThrow(InvalidFilter);
    }
  });
});

describe('parseScimPath: PATCH paths of the fixtures', () => {
  const all = [
    ...paths.rfc7644.patch_paths.map((p) => p.path),
    ...paths.entra.patch_paths.map((p) => p.path),
    ...paths.okta.patch_paths.map((p) => p.path),
    ...paths.entra.attribute_mapping_paths.values,
    ...paths.entra.dotted_keys_in_pathless_replace,
    ...paths.rfc7644.attribute_notation.map((a) => a.value.replace(/^sortBy=/, '')),
  ];

  test.each(all)('%s', (text) => {
    expect(() => parseScimPath(text)).not.toThrow();
  });

  test('the forms of RFC 7644 figure 7', () => {
    expect(parseScimPath('members')).toEqual({ attr: at('members') });
    expect(parseScimPath('name.familyName')).toEqual({ attr: at('name.familyName') });
    expect(parseScimPath('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber')).toEqual({
      attr: { text: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber', uri: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', name: 'employeeNumber' },
    });
    expect(parseScimPath('members[value eq "2819c223-7f76-453a-919d-413861904646"].displayName')).toEqual({
      attr: at('members'),
      filter: { op: 'eq', attr: at('value'), value: '2819c223-7f76-453a-919d-413861904646' },
      subAfter: 'displayName',
    });
    expect(parseScimPath('emails[type eq "other"].Value')).toMatchObject({ subAfter: 'Value' });
  });

  test.each<[string, RegExp]>([
    ['members[value eq "x"] pr', /expected the end of the path, found "pr"/],
    ['members pr', /expected the end of the path, found "pr"/],
    ['"members"', /expected an attribute path, found the string "members"/],
    ['members[value eq "x"', /expected "\]" to close/],
    ['', /the filter is empty/],
  ])('%j is refused', (text, message) => {
    expect(scimError(() => parseScimPath(text)).message).toMatch(message);
  });
});

describe('parseScimFilter: properties', () => {
  const name = fc.constantFrom('a', 'userName', 'not', 'and', 'pr', 'eq', 'x-y_1');
  const path = fc.oneof(
    name.map((n) => at(n)),
    fc.tuple(name, name).map(([n, s]) => at(`${n}.${s}`)),
    name.map((n) => at(`urn:ietf:params:scim:schemas:core:2.0:User:${n}`)),
  );
  const value = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 6 }).filter((s) => !s.includes('\u0000')),
    fc.boolean(),
    fc.constant(null),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
  );
  const leaf = (p: fc.Arbitrary<AttrPath>): fc.Arbitrary<ScimFilter> =>
    fc.oneof(fc.record({ op: fc.constantFrom(...COMPARE_OPS), attr: p, value }), fc.record({ op: fc.constant('pr' as const), attr: p }));
  const tree = (p: fc.Arbitrary<AttrPath>, withValuePaths: boolean): fc.Memo<ScimFilter> => {
    const t: fc.Memo<ScimFilter> = fc.memo((n) =>
      n <= 1
        ? leaf(p)
        : fc.oneof(
            leaf(p),
            fc.record({ op: fc.constantFrom('and' as const, 'or' as const), left: t(n - 1), right: t(n - 1) }),
            fc.record({ op: fc.constant('not' as const), expr: t(n - 1) }),
            ...(withValuePaths ? [fc.record({ op: fc.constant('valuePath' as const), attr: name.map((n2) => at(n2)), filter: tree(name.map((n2) => at(n2)), false)(n - 1) })] : []),
          ),
    );
    return t;
  };

  test('formatScimFilter output parses back to the same tree', () => {
    fc.assert(
      fc.property(tree(path, true)(5), (node) => {
        const text = formatScimFilter(node);
        fc.pre(text.length <= FILTER_LIMITS.maxLength);
        expect(parseScimFilter(text)).toEqual(node);
      }),
      { numRuns: 500 },
    );
  });

  test('arbitrary text either parses or fails with InvalidFilter at a position', () => {
    const alphabet = fc.constantFrom(...'ab ()[]"\\\'.:-_1 eq gt le co pr and or not true null urn:x:'.split(''), ' and ', ' not (', ' eq "', '[', '].', '\u00e9', '\ud800');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: alphabet, maxLength: 60 }), fc.string({ maxLength: 60 })), (text) => {
        for (const parse of [() => parseScimFilter(text), () => parseScimPath(text)]) {
          try {
            parse();
          } catch (e) {
            expect(e).toBeInstanceOf(InvalidFilter);
            expect((e as InvalidFilter).message).toMatch(/\(at position \d+\)$/);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("metaInstant: a subject's timestamp in the store's tree compares as an instant", () => {
  const instant = (op: CompareOp, value: string) => metaInstant({ op, attr: META_LAST_MODIFIED, value });
  test.each<[string, string]>([
    ['2011-05-13T04:42:34Z', '2011-05-13T04:42:34.000Z'],
    ['2011-05-13t04:42:34z', '2011-05-13T04:42:34.000Z'],
    ['2011-05-13T06:42:34.5+02:00', '2011-05-13T04:42:34.500Z'],
    ['2011-05-13T04:42:34.123456789Z', '2011-05-13T04:42:34.123Z'],
    ['2011-05-13T04:42:34', '2011-05-13T04:42:34.000Z'],
  ])('%s → %s', (value, expected) => {
    expect(instant('gt', value)).toBe(expected);
  });

  test.each<[CompareOp, string, RegExp]>([
    ['co', '2011', /"co" does not apply to the date-time meta\.lastModified/],
    ['sw', '2011-05-13T04:42:34Z', /"sw" does not apply/],
    ['gt', '2011-05-13', /compares with a date-time such as/],
    ['gt', 'yesterday', /not "yesterday"/],
    ['gt', '2011-02-30T00:00:00Z', /compares with a date-time/],
  ])('%s %j is refused', (op, value, message) => {
    expect(() => instant(op, value)).toThrow(InvalidFilter);
    expect(() => instant(op, value)).toThrow(message);
  });

  test('no svc attribute can be named so, and the REST SEARCH refuses the names', () => {
    expect(isMetaAttr(META_CREATED) && isMetaAttr(META_LAST_MODIFIED) && !isMetaAttr('meta')).toBe(true);
    expect(() => parseFilter('meta.lastModified gt "2011-05-13T04:42:34Z"', () => true)).toThrow(/sub-attributes are not supported/);
  });
});
