/**
 * A QR code as inline SVG (SPEC 15: the enrollment's `otpauth://` URI for an authenticator app),
 * drawn by the portal with the `qrcode` package: no image service, no script, no inline style (its
 * SVG has presentation attributes only, which the strict CSP allows), and an accessible name.
 */
import { toString as qrToString } from 'qrcode';
import { escapeHtml, Html } from '../../../../common/src/html';

/** `text` as an SVG QR code (error correction M, a quiet zone of 4 modules), named `label` for screen readers. */
export async function qrSvg(text: string, label: string): Promise<Html> {
  const svg = await qrToString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4, color: { dark: '#000000', light: '#ffffff' } });
  // What qrcode draws is one <svg> of paths; anything else is not put into a page.
  if (!/^<svg [^>]*>(<path [^>]*\/>)+<\/svg>\s*$/.test(svg)) throw new Error('qrcode drew something other than an SVG of paths');
  return new Html(svg.trim().replace(/^<svg /, `<svg class="svc-qr" role="img" aria-label="${escapeHtml(label)}" focusable="false" `));
}
