import { createHash } from 'node:crypto';
import type { Response } from 'express';
import { Html, html } from '../../../../common/src/html';

export { escapeHtml, Html, html, hidden } from '../../../../common/src/html';

export interface PageOptions {
  /** Tables (the config area) need more than a form's width. */
  wide?: boolean;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.75rem 0 .25rem}' +
  'input,textarea{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1rem;padding:.5rem 1rem}' +
  '.problem{border-left:4px solid #b00;padding:.25rem .75rem;background:#fff4f4}.notice{border-left:4px solid #070;padding:.25rem .75rem;background:#f4fff4}' +
  'table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top;font-size:.9rem}' +
  'td form button{margin:0;padding:.2rem .6rem}';
const WIDE = 'body{max-width:72rem}';

/** The pages' one style element is allowed by its hash, so no other inline style (an injected one) runs. */
const cspFor = (style: string) =>
  `default-src 'none'; style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;
const CSP = { narrow: cspFor(STYLE), wide: cspFor(STYLE + WIDE) };

/**
 * Sends a small server-rendered page: no scripts, nothing from other origins, never framed or
 * cached, forms posting only to ourselves.
 */
export function sendPage(res: Response, status: number, title: string, body: Html, options: PageOptions = {}): void {
  res.status(status);
  res.setHeader('Content-Security-Policy', options.wide ? CSP.wide : CSP.narrow);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  const style = options.wide ? STYLE + WIDE : STYLE;
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title>
<style>${new Html(style)}</style>
</head><body><main><h1>${title}</h1>${body}</main></body></html>
`;
  res.type('text/html; charset=utf-8').send(page.text);
}
