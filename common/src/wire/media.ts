/** The media types svc speaks, and the one rule for choosing between them. */
export type WireFormat = 'json' | 'xml';

export const MEDIA = {
  json: 'application/json',
  xml: 'application/xml',
  problemJson: 'application/problem+json',
  problemXml: 'application/problem+xml',
} as const;

/** The format of a request body from its Content-Type, or undefined when it is neither. */
export function formatOfContentType(contentType: string | undefined): WireFormat | undefined {
  if (!contentType) return undefined;
  const type = contentType.split(';')[0].trim().toLowerCase();
  if (type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type)) return 'json';
  if (type === 'application/xml' || type === 'text/xml' || /^application\/[a-z0-9.+-]+\+xml$/.test(type)) return 'xml';
  return undefined;
}
