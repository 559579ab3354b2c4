/**
 * common/src/html.ts: the escaping every server-rendered page relies on. Its fast path (a value with
 * nothing to escape is returned as it is) must give exactly what escaping every character would.
 */
import fc from 'fast-check';
import { escapeHtml, hidden, Html, html } from '../../common/src/html';

/** The definition: each of the six characters as a numeric reference, everything else as it is. */
const reference = (value: string): string => value.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);

describe('escapeHtml', () => {
  it('replaces each of & < > " \' ` by its numeric reference', () => {
    expect(escapeHtml(`a&b<c>d"e'f\`g`)).toBe('a&#38;b&#60;c&#62;d&#34;e&#39;f&#96;g');
    expect(escapeHtml('<<>>')).toBe('&#60;&#60;&#62;&#62;');
    expect(escapeHtml('&')).toBe('&#38;');
  });

  it('returns text with nothing to escape unchanged', () => {
    expect(escapeHtml('')).toBe('');
    expect(escapeHtml('bob@example.com – Ünïcödé')).toBe('bob@example.com – Ünïcödé');
  });

  it('agrees with the definition on any text', () => {
    const alphabet = fc.constantFrom('&', '<', '>', '"', "'", '`', 'a', ' ', 'é', '\u0000', '😀', ';', '#');
    fc.assert(fc.property(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: alphabet })), (value) => escapeHtml(value) === reference(value)), { numRuns: 2000 });
  });
});

describe('html', () => {
  it('escapes strings and numbers, inserts Html as it is, and joins arrays of either', () => {
    const items = [html`<li>${'<b>'}</li>`, html`<li>${2}</li>`];
    const out = html`<p title="${'"x"'}">${new Html('<i>ok</i>')}${'&'}</p><ul>${items}</ul>${[]}`;
    expect(out.text).toBe('<p title="&#34;x&#34;"><i>ok</i>&#38;</p><ul><li>&#60;b&#62;</li><li>2</li></ul>');
  });

  it('hidden() leaves out empty and undefined values and escapes the rest', () => {
    expect(hidden({ a: 'x"y', b: '', c: undefined }).map((h) => h.text)).toEqual(['<input type="hidden" name="a" value="x&#34;y">']);
  });
});
