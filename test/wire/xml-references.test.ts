/**
 * SPEC section 3: an XML body may use XML's five predefined entities and character references, and
 * nothing else: any other entity reference is 400 malformed_body, as a standard XML parser refuses an
 * undeclared entity. Character references are decoded as XML defines them (once, in one pass), and
 * one naming no XML character (NUL, a surrogate, U+FFFE) is refused as XML refuses it. The REST
 * reader (parseXml) and SOAP's (parseXmlTree) share the rule.
 */
import { MalformedBody } from '../../common/src/errors';
import { parseXml, toXml } from '../../common/src/wire/xml';
import { parseXmlTree } from '../../common/src/wire/xml-tree';

const subject = (givenName: string) => `<subject><attributes><givenName>${givenName}</givenName></attributes></subject>`;
const givenName = (text: string) => (parseXml(subject(text)) as { subject: { attributes: { givenName: unknown } } }).subject.attributes.givenName;
const treeText = (text: string) => parseXmlTree(`<a xmlns="urn:x">${text}</a>`).text;

function refusal(parse: () => unknown): MalformedBody {
  try {
    parse();
  } catch (error) {
    if (error instanceof MalformedBody) return error;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseXml: entity and character references', () => {
  it.each([
    ['a&amp;b', 'a&b'],
    ['&lt;x&gt; &quot;y&quot; &apos;z&apos;', `<x> "y" 'z'`],
    ['&#65;', 'A'],
    ['&#x41;&#x0041;', 'AA'],
    ['&#x1F600;', '\u{1F600}'],
    ['&#xE9;t&#233;', 'été'],
    ['&#9;&#10;&#13;', '\t\n\r'],
    // decoded once: a reference's result is text, never read again as a reference
    ['&amp;#65;', '&#65;'],
    ['&#38;amp;', '&amp;'],
    ['&#38;#65;', '&#65;'],
    ['&amp;nbsp;', '&nbsp;'],
    // CDATA is literal text
    ['<![CDATA[&nbsp; &#65; &foo;]]>', '&nbsp; &#65; &foo;'],
  ])('%s is %s', (sent, stored) => {
    expect(givenName(sent)).toBe(stored);
  });

  it.each([
    ['an HTML entity', 'a&nbsp;b', /&nbsp;/],
    ['an undeclared entity', 'a&foo;b', /&foo;/],
    ['an entity named like a predefined one in another case', '&AMP;', /&AMP;/],
    ['NUL', '&#0;', /&#0;/],
    ['a control character XML does not allow', '&#x1;', /&#x1;/],
    ['a lone surrogate', '&#xD800;', /&#xD800;/],
    ['U+FFFE', '&#xFFFE;', /&#xFFFE;/],
    ['beyond U+10FFFF', '&#x110000;', /&#x110000;/],
    ['a huge number', `&#${'9'.repeat(30)};`, /character reference/],
    ['a malformed character reference', '&#x;', /character reference/],
    ['a decimal reference with hex digits', '&#6A;', /malformed XML|character reference/],
  ])('%s (%s) is a MalformedBody naming it', (_name, sent, detail) => {
    const error = refusal(() => parseXml(subject(sent)));
    expect(error.code).toBe('malformed_body');
    expect(error.message).toMatch(detail);
  });

  it('refuses references in attribute values too, and decodes character references there', () => {
    expect(refusal(() => parseXml('<subject><attributes><givenName nil="&nbsp;"/></attributes></subject>')).message).toMatch(/&nbsp;/);
    expect(parseXml('<subject><attributes><givenName nil="tru&#x65;"/></attributes></subject>')).toEqual({ subject: { attributes: { givenName: null } } });
  });

  it('an & that starts no reference is malformed, in text and in attribute values', () => {
    expect(refusal(() => parseXml(subject('a & b'))).code).toBe('malformed_body');
    expect(refusal(() => parseXmlTree('<a xmlns="urn:x" b="a & b"/>')).message).toMatch(/starts no entity or character reference/);
  });

  it('what toXml writes still reads back as it was', () => {
    const doc = { subject: { uniqueId: 'x', attributes: { givenName: `&nbsp; &#65; <b> "q" 'a' &amp;` } } };
    expect(parseXml(toXml(doc))).toEqual(doc);
  });
});

describe('parseXmlTree (SOAP) follows the same rule', () => {
  it('decodes the five and character references, once', () => {
    expect(treeText('&#65;&#x42;&amp;&lt;&#38;amp;')).toBe('AB&<&amp;');
    expect(parseXmlTree('<a xmlns="urn:x" b="&#65;"/>').attributes).toEqual([{ ns: undefined, local: 'b', value: 'A' }]);
  });

  it.each([['a&nbsp;b'], ['&foo;'], ['&#0;'], ['&#xDFFF;']])('refuses %s', (sent) => {
    expect(refusal(() => treeText(sent)).code).toBe('malformed_body');
  });
});
