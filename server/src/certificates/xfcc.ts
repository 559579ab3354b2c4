import { X509Certificate } from 'node:crypto';

/** Longer than any certificate chain a proxy forwards: a bigger header is not parsed at all. */
const MAX_XFCC_LENGTH = 64 * 1024;

export class XfccError extends Error {
  constructor(message: string) {
    super(`X-Forwarded-Client-Cert: ${message}`);
    this.name = 'XfccError';
  }
}

/**
 * Splits at `separator` outside double quotes; inside them a backslash escapes the next character
 * (Envoy quotes values holding `,;=` and escapes `"` in them).
 */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\' && i + 1 < text.length) {
      current += c + text[++i];
    } else if (c === '"') {
      quoted = !quoted;
      current += c;
    } else if (!quoted && c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  if (quoted) throw new XfccError('unterminated quote');
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  const v = value.trim();
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return v.slice(1, -1).replace(/\\(.)/g, '$1');
  return v;
}

/** The key/value pairs of one element (`By=…;Hash=…;Cert="…";Subject="…";URI=…`), keys as given. */
export function parseXfccElement(element: string): Map<string, string[]> {
  const pairs = new Map<string, string[]>();
  for (const pair of splitOutsideQuotes(element, ';')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new XfccError('a pair without a key');
    const key = pair.slice(0, eq).trim().toLowerCase();
    pairs.set(key, [...(pairs.get(key) ?? []), unquote(pair.slice(eq + 1))]);
  }
  return pairs;
}

/**
 * The client certificate a TLS-terminating proxy forwarded in Envoy's `X-Forwarded-Client-Cert`
 * format: the LAST element only (each proxy appends its own; the last is the hop that terminated the
 * client's TLS and talks to us), and its `Cert`, URL-encoded PEM. `Hash`, `Subject` and `URI` are the
 * proxy's opinion and are not used: the certificate itself is verified again as a handshake's would
 * be. Throws XfccError for anything malformed, or when the element carries no `Cert`.
 */
export function certificateFromXfcc(header: string): X509Certificate {
  if (header.length > MAX_XFCC_LENGTH) throw new XfccError('too long');
  const elements = splitOutsideQuotes(header, ',').filter((e) => e.trim() !== '');
  const last = elements[elements.length - 1];
  if (last === undefined) throw new XfccError('empty');
  const certs = parseXfccElement(last).get('cert') ?? [];
  if (certs.length !== 1) throw new XfccError(certs.length ? 'more than one Cert' : 'no Cert in the last element');
  let pem: string;
  try {
    pem = decodeURIComponent(certs[0]);
  } catch {
    throw new XfccError('Cert is not URL-encoded');
  }
  if (!/^\s*-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----\s*$/.test(pem)) throw new XfccError('Cert is not one PEM certificate');
  try {
    return new X509Certificate(pem);
  } catch {
    throw new XfccError('Cert does not parse');
  }
}
