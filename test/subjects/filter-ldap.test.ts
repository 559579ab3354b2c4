/**
 * The SCIM filter subset compiled to RFC 4515 filters for the directory store, with every value
 * escaped (RFC 4515) and DN values escaped (RFC 4514). test/subjects/ldap-store.test.ts runs the
 * same filters against a real directory; this pins the text.
 */
import { parseFilter } from '../../server/src/subjects/filter/parse';
import { candidateFilter, escapeDnValue, escapeFilterValue, filterToLdap, ldapAttributeOf } from '../../server/src/subjects/filter/to-ldap';

const attribute = ldapAttributeOf('uid', { familyName: 'sn', roles: 'svcRole' });
const compile = (text: string) => filterToLdap(parseFilter(text, () => true), attribute);

describe('candidateFilter: what the directory is asked, at least what svc selects under its wider matching', () => {
  const candidates = (text: string) => {
    const widened = candidateFilter(parseFilter(text, () => true));
    return widened && filterToLdap(widened, attribute);
  };
  it.each([
    ['mail eq "a"', '(mail=a)'],
    ['mail ne "a"', undefined],
    ['not (mail eq "a")', undefined],
    ['not (mail ne "a")', '(mail=a)'],
    ['not (roles pr)', '(!(svcRole=*))'],
    ['mail eq "a" and not (roles eq "x")', '(mail=a)'],
    ['mail eq "a" or not (roles eq "x")', undefined],
    ['not (mail ne "a" or roles pr)', '(&(mail=a)(!(svcRole=*)))'],
    ['not (mail eq "a" and roles eq "x")', undefined],
    ['not (not (mail sw "a"))', '(mail=a*)'],
    // The directory's ordering is not svc's: an ordering asks only for the attribute's presence.
    ['familyName gt "m"', '(sn=*)'],
    ['mail eq "a" and uniqueId le "b"', '(&(mail=a)(uid=*))'],
    ['not (familyName lt "m")', undefined],
    ['not (familyName ge "m" or roles pr)', '(!(svcRole=*))'],
  ])('%s → %s', (scim, ldap) => {
    expect(candidates(scim)).toBe(ldap);
  });
});

describe('filterToLdap', () => {
  it.each([
    ['mail eq "a@b.org"', '(mail=a@b.org)'],
    ['mail ne "a@b.org"', '(!(mail=a@b.org))'],
    ['familyName co "berg"', '(sn=*berg*)'],
    ['familyName sw "B"', '(sn=B*)'],
    ['familyName ew "g"', '(sn=*g)'],
    ['roles pr', '(svcRole=*)'],
    ['uniqueId eq "bob"', '(uid=bob)'],
    ['not (roles eq "admin")', '(!(svcRole=admin))'],
    ['mail eq "a" and (roles eq "x" or roles eq "y")', '(&(mail=a)(|(svcRole=x)(svcRole=y)))'],
    ['mail eq ""', '(!(objectClass=*))'],
    ['mail ne ""', '(objectClass=*)'],
    ['mail co ""', '(mail=*)'],
    ['familyName ge "m"', '(sn>=m)'],
    ['familyName le "m"', '(sn<=m)'],
    ['familyName gt "m"', '(&(sn>=m)(!(sn=m)))'],
    ['familyName lt "m*"', '(&(sn<=m\\2a)(!(sn=m\\2a)))'],
    ['familyName ge ""', '(sn=*)'],
    ['familyName gt ""', '(sn=*)'],
    ['familyName le ""', '(!(objectClass=*))'],
    ['familyName lt ""', '(!(objectClass=*))'],
  ])('%s → %s', (scim, ldap) => {
    expect(compile(scim)).toBe(ldap);
  });

  it.each([
    ['*', '(mail=\\2a)'],
    [')(', '(mail=\\29\\28)'],
    ['\\00', '(mail=\\5c00)'],
    ['(|(uid=*))', '(mail=\\28|\\28uid=\\2a\\29\\29)'],
  ])('the value %j is only a value: %s', (value, ldap) => {
    expect(compile(`mail eq ${JSON.stringify(value)}`)).toBe(ldap);
  });

  it('a NUL (which the filter parser refuses anyway) is escaped too', () => {
    expect(filterToLdap({ op: 'eq', attr: 'mail', value: 'a\u0000*' }, attribute)).toBe('(mail=a\\00\\2a)');
  });

  it('escapes values inside substrings too, keeping its own wildcards', () => {
    expect(compile('givenName co "*)(uid=*"')).toBe('(givenName=*\\2a\\29\\28uid=\\2a*)');
  });
});

describe('escapeFilterValue and escapeDnValue', () => {
  it('escapes exactly what RFC 4515 names in a filter value', () => {
    expect(escapeFilterValue('a*b(c)d\\e\u0000f é')).toBe('a\\2ab\\28c\\29d\\5ce\\00f é');
  });

  it('escapes what RFC 4514 names in a DN value', () => {
    expect(escapeDnValue('a+b,c;d<e>f"g\\h=i')).toBe('a\\+b\\,c\\;d\\<e\\>f\\"g\\\\h\\=i');
    expect(escapeDnValue('#x')).toBe('\\#x');
    expect(escapeDnValue(' x ')).toBe('\\ x\\ ');
    expect(escapeDnValue('a\u0000b')).toBe('a\\00b');
    expect(escapeDnValue('alice@example.com')).toBe('alice@example.com');
  });
});
