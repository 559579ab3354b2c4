/**
 * The LDAP protocol pieces ldapts does not carry, for the directory store (SPEC section 13): the
 * assertion control (RFC 4528, If-Match on entryCSN), the virtual list view request and response
 * (draft-ietf-ldapext-ldapv3-vlv: ordered offset pages with a total, with server-side sorting, RFC
 * 2891), the password modify extended operation (RFC 3062), and a search that hands back the
 * response controls, which ldapts's own `search()` drops.
 */
import { BerReader, BerWriter, Client, Control, FilterParser, SearchRequest, StatusCodeParser, type ClientOptions, type Entry, type Filter } from 'ldapts';

const OCTET_STRING = 0x04;

/** RFC 4528: the operation happens only when the entry matches `filter`; otherwise result 122, assertionFailed. */
export class AssertionControl extends Control {
  static readonly type = '1.3.6.1.1.12';

  constructor(private readonly filter: Filter) {
    super(AssertionControl.type, { critical: true });
  }

  protected override writeControl(writer: BerWriter): void {
    const value = new BerWriter();
    this.filter.write(value);
    writer.writeBuffer(value.buffer, OCTET_STRING);
  }
}

/** The window of a VLV search: `after` entries after the target, which is the `offset`-th (1-based) or the first ≥ `from`. */
export type VlvTarget = { offset: number } | { from: string };

/** VirtualListViewRequest: beforeCount 0, afterCount, target byOffset [0] or greaterThanOrEqual [1]. */
export class VlvRequestControl extends Control {
  static readonly type = '2.16.840.1.113730.3.4.9';

  constructor(
    private readonly after: number,
    private readonly target: VlvTarget,
    /** The contextID of the connection's previous VLV answer: the server reuses that sort's slot. */
    private readonly context?: Buffer,
  ) {
    super(VlvRequestControl.type, { critical: true });
  }

  protected override writeControl(writer: BerWriter): void {
    const value = new BerWriter();
    value.startSequence();
    value.writeInt(0);
    value.writeInt(this.after);
    if ('offset' in this.target) {
      value.startSequence(0xa0);
      value.writeInt(this.target.offset);
      value.writeInt(0);
      value.endSequence();
    } else {
      value.writeString(this.target.from, 0x81);
    }
    if (this.context?.length) value.writeBuffer(this.context, OCTET_STRING);
    value.endSequence();
    writer.writeBuffer(value.buffer, OCTET_STRING);
  }
}

/** VirtualListViewResponse: the target's position, the number of entries the sorted search matched, and the result. */
export class VlvResponseControl extends Control {
  static readonly type = '2.16.840.1.113730.3.4.10';
  targetPosition = 0;
  contentCount = 0;
  result = -1;
  context?: Buffer;

  constructor() {
    super(VlvResponseControl.type);
  }

  protected override parseControl(reader: BerReader): void {
    const length = reader.readSequence();
    if (length === null) return;
    const end = reader.offset + length;
    this.targetPosition = reader.readInt() ?? 0;
    this.contentCount = reader.readInt() ?? 0;
    this.result = reader.readEnumeration() ?? -1;
    if (reader.offset < end) this.context = reader.readString(OCTET_STRING, true) ?? undefined;
  }
}

/** PasswdModifyRequestValue (RFC 3062): [0] userIdentity, [1] oldPasswd, [2] newPasswd. */
export function passwordModifyValue(userDN: string, newPassword: string, oldPassword?: string): Buffer {
  const value = new BerWriter();
  value.startSequence();
  value.writeString(userDN, 0x80);
  if (oldPassword !== undefined) value.writeString(oldPassword, 0x81);
  value.writeString(newPassword, 0x82);
  value.endSequence();
  return value.buffer;
}
export const PASSWORD_MODIFY_OID = '1.3.6.1.4.1.4203.1.11.1';
/** "Who am I?" (RFC 4532): one harmless round trip, what a refused login spends instead of a bind. */
export const WHO_AM_I_OID = '1.3.6.1.4.1.4203.1.11.3';

export interface ControlledSearch {
  entries: Entry[];
  vlv?: VlvResponseControl;
  /** The LDAP result code (0 success; 76 a VLV window past the end still carries the VLV response). */
  status: number;
}

/**
 * The members of ldapts 8's Client that a search with response controls needs. They are private in
 * its typings; this file is the only user, and test/subjects/ldap-store.test.ts's VLV total checks
 * that they still behave (a change of ldapts shows there first).
 */
interface ClientInternals {
  _ensureConnected(): Promise<void>;
  _nextMessageId(): number;
  _send(message: SearchRequest): Promise<{ status: number; errorMessage: string; searchEntries: Array<{ toObject(a: string[], b: string[]): Entry }> } | undefined>;
}

/**
 * VLV searches a connection makes before it is replaced. OpenLDAP's sssvlv keeps each VLV sort's
 * state for the connection's life (a request may continue it by its contextID) and refuses more than
 * `olcSssVlvMaxPerConn` (16 by default) with "busy"; svc never continues a sort, so it retires the
 * connection well before that.
 */
export const VLV_SEARCHES_PER_CONNECTION = 8;

/** An ldapts client with a search that also returns the VLV response control. */
export class DirectoryClient extends Client {
  /** VLV searches made on this connection (see VLV_SEARCHES_PER_CONNECTION). */
  vlvSearches = 0;

  /** True when the pool should close this connection rather than reuse it. */
  get worn(): boolean {
    return this.vlvSearches >= VLV_SEARCHES_PER_CONNECTION;
  }

  constructor(options: ClientOptions) {
    super(options);
  }

  async searchWithControls(baseDN: string, options: { scope: 'one' | 'sub' | 'base'; filter: string; attributes: string[] }, controls: Control[]): Promise<ControlledSearch> {
    // A cast to the private members (ClientInternals says why).
    const internals = this as unknown as ClientInternals;
    await internals._ensureConnected();
    const request = new SearchRequest({
      messageId: internals._nextMessageId(),
      baseDN,
      scope: options.scope,
      filter: FilterParser.parseString(options.filter),
      attributes: options.attributes,
      explicitBufferAttributes: [],
      returnAttributeValues: true,
      sizeLimit: 0,
      timeLimit: 0,
      controls,
    });
    const vlv = new VlvResponseControl();
    if (controls.some((c) => c instanceof VlvRequestControl)) this.vlvSearches++;
    const sent = internals._send(request);
    // ldapts parses a response control it does not know into the request's control of the same type.
    // _send has written the request already, so the VLV response joins the request's list unsent.
    (request.controls ??= []).push(vlv);
    const result = await sent;
    if (!result) throw StatusCodeParser.parse(result);
    if (result.status !== 0 && !(result.status === 76 && vlv.result >= 0)) throw StatusCodeParser.parse(result as never);
    return {
      entries: result.searchEntries.map((e) => e.toObject(options.attributes, [])),
      vlv: vlv.result >= 0 ? vlv : undefined,
      status: result.status,
    };
  }
}
