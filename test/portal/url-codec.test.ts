/**
 * The portal's URL codec (portlet-adapter/src/portal/url-codec.ts) writes its queries itself, a window
 * at a time, rather than through URLSearchParams: these check that it writes exactly what
 * URLSearchParams would, that a page request's RenderUrls gives what renderUrl(withWindow(…)) gives,
 * and that a page's query parses back to the states it was built from.
 */
import fc from 'fast-check';
import { formEncode, parsePageQuery, RenderUrls, renderUrl, withWindow, type PageUrl, type WindowUrlState } from '../../portlet-adapter/src/portal/url-codec';

const serialized = (name: string, value: string): string => new URLSearchParams([[name, value]]).toString();

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.constantFrom('a b', "!'()~*", '\ud800x', 'é&=+%'));
const name = fc.stringMatching(/^[a-z][a-zA-Z0-9_-]{0,8}$/);
const parameters = fc.dictionary(name, fc.array(text, { minLength: 1, maxLength: 3 }), { maxKeys: 4 }).map((record) => Object.assign(Object.create(null) as Record<string, string[]>, record));
const mode = fc.constantFrom('view', 'edit', 'help');
const state = fc.constantFrom('normal', 'maximized', 'minimized');
const windowState: fc.Arbitrary<WindowUrlState> = fc.record({ mode, state, parameters, initial: fc.option(fc.record({ mode, state }), { nil: undefined }) });
const page: fc.Arbitrary<PageUrl> = fc
  .uniqueArray(name, { minLength: 1, maxLength: 4 })
  .chain((ids) => fc.tuple(...ids.map((id) => windowState.map((w) => [id, w] as const))))
  .map((windows) => ({ root: '/portal', pageId: 'home page', windows: new Map(windows) }));

describe('the portal URL codec', () => {
  it('encodes a name or value as URLSearchParams serializes it', () => {
    expect(formEncode('me.p.view')).toBe('me.p.view');
    expect(formEncode("a b!'()~")).toBe('a+b%21%27%28%29%7E');
    fc.assert(fc.property(text, (value) => `x=${formEncode(value)}` === serialized('x', value)), { numRuns: 3000 });
  });

  it("gives a page request's render URLs as renderUrl(withWindow(…)) does, for every window", () => {
    fc.assert(
      fc.property(page, windowState, (p, next) => {
        const urls = new RenderUrls(p);
        return [...p.windows.keys(), 'other'].every((id) => urls.to(id, next) === renderUrl(withWindow(p, id, next)));
      }),
      { numRuns: 500 },
    );
  });

  it('writes what URLSearchParams writes, and parses back to the states it was built from', () => {
    fc.assert(
      fc.property(page, (p) => {
        const url = renderUrl(p);
        const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
        const expected = new URLSearchParams();
        for (const [id, w] of p.windows) {
          const initial = w.initial ?? { mode: 'view', state: 'normal' };
          if (w.mode !== 'view' || initial.mode !== 'view') expected.append(`${id}.m`, w.mode);
          if (w.state !== 'normal' || initial.state !== 'normal') expected.append(`${id}.s`, w.state);
          for (const [n, values] of Object.entries(w.parameters)) for (const v of values) expected.append(`${id}.p.${n}`, v);
        }
        if (query !== expected.toString()) return false;
        const parsed = parsePageQuery(query, new Set(p.windows.keys()));
        return [...parsed.windows].every(([id, w]) => {
          const built = p.windows.get(id)!;
          const same = (a: Record<string, readonly string[]>, b: Record<string, readonly string[]>) => JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b).map(([k, v]) => [k, v.map((x) => x.toWellFormed())]));
          return (w.mode ?? 'view') === built.mode && (w.state ?? 'normal') === built.state && same(w.parameters, built.parameters);
        });
      }),
      { numRuns: 500 },
    );
  });
});
