/**
 * A minimal DER reader (X.690): just what certificates and CRLs need (tags, lengths, nested
 * values, OIDs, integers, times). node:crypto parses certificates but has no CRL API and does not
 * expose a certificate's raw names or extensions, so those are read here. Every malformed input
 * throws DerError; nothing is guessed.
 */
export class DerError extends Error {
  constructor(message: string) {
    super(`DER: ${message}`);
    this.name = 'DerError';
  }
}

export const TAG = {
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

/** One TLV: its tag, its content, and its whole encoding (what a signature covers). */
export interface Der {
  tag: number;
  content: Buffer;
  raw: Buffer;
}

/** Reads the one value at `offset`; `end` is where the enclosing content ends. */
function readAt(buffer: Buffer, offset: number, end: number): Der {
  if (offset + 2 > end) throw new DerError('truncated header');
  const tag = buffer[offset];
  if ((tag & 0x1f) === 0x1f) throw new DerError('multi-byte tags are not used here');
  let length = buffer[offset + 1];
  let header = 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    // Four length bytes are 4 GiB: far beyond any certificate or CRL; 0x80 alone is BER's indefinite form.
    if (bytes === 0 || bytes > 4) throw new DerError('unsupported length');
    if (offset + 2 + bytes > end) throw new DerError('truncated length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + buffer[offset + 2 + i];
    header += bytes;
  }
  const start = offset + header;
  if (start + length > end) throw new DerError('value longer than its container');
  return { tag, content: buffer.subarray(start, start + length), raw: buffer.subarray(offset, start + length) };
}

/** The single value a buffer holds (trailing bytes are an error). */
export function parseDer(buffer: Buffer): Der {
  const value = readAt(buffer, 0, buffer.length);
  if (value.raw.length !== buffer.length) throw new DerError('trailing bytes');
  return value;
}

/** The values inside a constructed one (SEQUENCE, SET, explicit tags). */
export function children(value: Der): Der[] {
  if (!(value.tag & 0x20)) throw new DerError(`tag 0x${value.tag.toString(16)} is not constructed`);
  const out: Der[] = [];
  let offset = 0;
  while (offset < value.content.length) {
    const child = readAt(value.content, offset, value.content.length);
    out.push(child);
    offset += child.raw.length;
  }
  return out;
}

export function expectTag(value: Der | undefined, tag: number, what: string): Der {
  if (!value || value.tag !== tag) throw new DerError(`${what}: expected tag 0x${tag.toString(16)}`);
  return value;
}

export function readOid(value: Der): string {
  expectTag(value, TAG.oid, 'OID');
  const bytes = value.content;
  if (bytes.length === 0) throw new DerError('empty OID');
  const parts: number[] = [];
  let n = 0;
  for (const byte of bytes) {
    n = n * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) {
      parts.push(n);
      n = 0;
    }
  }
  const first = parts.shift() ?? 0;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...parts].join('.');
}

/** An INTEGER as upper-case hexadecimal without leading zeros: how serial numbers are compared. */
export function readSerialHex(value: Der): string {
  expectTag(value, TAG.integer, 'serial');
  return normaliseSerial(value.content.toString('hex'));
}

export function normaliseSerial(hex: string): string {
  return hex.toUpperCase().replace(/^0+(?=.)/, '');
}

/** UTCTime (YYMMDDHHMMSSZ, years 1950-2049 as RFC 5280 says) or GeneralizedTime (YYYYMMDDHHMMSSZ), as epoch ms. */
export function readTime(value: Der): number {
  const text = value.content.toString('latin1');
  let match: RegExpExecArray | null;
  let year: number;
  if (value.tag === TAG.utcTime && (match = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text))) {
    year = Number(match[1]);
    year += year < 50 ? 2000 : 1900;
  } else if (value.tag === TAG.generalizedTime && (match = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text))) {
    year = Number(match[1]);
  } else {
    throw new DerError('not a UTCTime or GeneralizedTime in UTC');
  }
  const [month, day, hour, minute, second] = match.slice(2).map(Number);
  return Date.UTC(year, month - 1, day, hour, minute, second);
}

export function isTime(value: Der | undefined): boolean {
  return value !== undefined && (value.tag === TAG.utcTime || value.tag === TAG.generalizedTime);
}

/** A BIT STRING's bytes (signatures have no unused bits). */
export function readBitString(value: Der): Buffer {
  expectTag(value, TAG.bitString, 'BIT STRING');
  if (value.content.length === 0 || value.content[0] !== 0) throw new DerError('BIT STRING with unused bits');
  return value.content.subarray(1);
}
