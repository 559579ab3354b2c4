import { BlockList, isIP } from 'node:net';

/** `::ffff:10.1.2.3` (an IPv4 peer on a dual-stack socket) is the IPv4 address it carries. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/**
 * A list of CIDRs (`10.0.0.0/8`, `::1/128`) or single addresses, checked with node:net's BlockList.
 * A malformed entry is a configuration mistake and throws, so a reload with it is refused.
 */
export class TrustedPeers {
  private readonly list = new BlockList();
  private readonly empty: boolean;

  constructor(entries: unknown, what: string) {
    if (entries === undefined) entries = [];
    if (!Array.isArray(entries)) throw new TypeError(`${what}: trustedPeers must be a list of CIDRs`);
    for (const entry of entries) {
      if (typeof entry !== 'string') throw new TypeError(`${what}: trustedPeers entries must be strings`);
      const [address, prefix, extra] = entry.split('/');
      const family = isIP(address);
      if (family === 0 || extra !== undefined) throw new TypeError(`${what}: "${entry}" is not a CIDR`);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      if (prefix === undefined) {
        this.list.addAddress(address, type);
        continue;
      }
      const bits = Number(prefix);
      if (!/^\d{1,3}$/.test(prefix) || bits > (family === 4 ? 32 : 128)) throw new TypeError(`${what}: "${entry}" has a bad prefix`);
      this.list.addSubnet(address, bits, type);
    }
    this.empty = entries.length === 0;
  }

  has(peer: string): boolean {
    if (this.empty) return false;
    const address = normalise(peer);
    const family = isIP(address);
    if (family === 0) return false;
    return this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}
