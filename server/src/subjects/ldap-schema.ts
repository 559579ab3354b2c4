import type { DirectoryClient } from './ldap-protocol';

/** What the directory's schema says of one attribute type (RFC 4512 attribute type description). */
interface AttributeType {
  names: string[];
  sup?: string;
  syntax?: string;
  singleValue: boolean;
  /** USAGE other than userApplications, or NO-USER-MODIFICATION: the directory's, not the entry owner's. */
  operational: boolean;
}

/** Syntaxes (RFC 4517) whose values the directory refuses where svc's strings may not fit: the test, and what the syntax holds. */
const SYNTAXES = new Map<string, [fits: RegExp, holds: string]>([
  // eslint-disable-next-line no-control-regex
  ['1.3.6.1.4.1.1466.115.121.1.26', [/^[\u0000-\u007F]*$/, 'only ASCII characters (IA5 String)']],
  ['1.3.6.1.4.1.1466.115.121.1.44', [/^[A-Za-z0-9'()+,\-./:? =]+$/, "only letters A to Z, digits, spaces and ' ( ) + , - . / : ? = (Printable String)"]],
  ['1.3.6.1.4.1.1466.115.121.1.50', [/^[A-Za-z0-9'()+,\-./:? =]+$/, "only letters A to Z, digits, spaces and ' ( ) + , - . / : ? = (Telephone Number)"]],
  ['1.3.6.1.4.1.1466.115.121.1.11', [/^[A-Za-z0-9'()+,\-./:? =]{2}$/, 'only a two-letter country code (Country String)']],
  ['1.3.6.1.4.1.1466.115.121.1.36', [/^[0-9 ]+$/, 'only digits and spaces (Numeric String)']],
  ['1.3.6.1.4.1.1466.115.121.1.27', [/^-?(0|[1-9][0-9]*)$/, 'only an integer (Integer)']],
  ['1.3.6.1.4.1.1466.115.121.1.7', [/^(TRUE|FALSE)$/, 'only TRUE or FALSE (Boolean)']],
]);

/** `( oid NAME ( 'a' 'b' ) … SUP x … SYNTAX oid{len} … SINGLE-VALUE … )` → the parts svc checks values by. */
function parseAttributeType(description: string): AttributeType | undefined {
  const named = /\bNAME\s+(?:'([^']*)'|\(\s*((?:'[^']*'\s*)+)\))/.exec(description);
  if (!named) return undefined;
  const names = named[1] !== undefined ? [named[1]] : [...named[2].matchAll(/'([^']*)'/g)].map((m) => m[1]);
  // Quoted text (NAME, DESC) may hold any word: keywords are looked for outside it.
  const bare = description.replace(/'[^']*'/g, "''");
  return {
    names,
    sup: /\bSUP\s+([A-Za-z0-9.-]+)/.exec(bare)?.[1],
    syntax: /\bSYNTAX\s+([0-9.]+)/.exec(bare)?.[1],
    singleValue: /\bSINGLE-VALUE\b/.test(bare),
    operational: /\bNO-USER-MODIFICATION\b/.test(bare) || /\bUSAGE\s+(?!userApplications\b)\w+/.test(bare),
  };
}

/**
 * The directory's own rules for values (its subschema, read at open): an attribute's syntax and
 * whether it holds one value. svc checks a write against them before sending it, so what the
 * directory would refuse is a 400 `invalid_attributes` naming the attribute, and an import is checked
 * whole before its first entry is written (SPEC 3: all or nothing; a directory has no transactions).
 */
export class DirectorySchema {
  private readonly types = new Map<string, AttributeType>();

  constructor(descriptions: readonly string[]) {
    for (const description of descriptions) {
      const type = parseAttributeType(description);
      for (const name of type?.names ?? []) this.types.set(name.toLowerCase(), type!);
    }
  }

  /** Reads the subschema the root DSE names; a directory that does not show it gives an empty schema (no checks). */
  static async read(client: DirectoryClient): Promise<DirectorySchema> {
    const root = await client.search('', { scope: 'base', filter: '(objectClass=*)', attributes: ['subschemaSubentry'] });
    const subentry = root.searchEntries[0]?.subschemaSubentry;
    const dn = Array.isArray(subentry) ? subentry[0] : subentry;
    if (dn === undefined) return new DirectorySchema([]);
    const { searchEntries } = await client.search(String(dn), { scope: 'base', filter: '(objectClass=subschema)', attributes: ['attributeTypes'] });
    const types = searchEntries[0]?.attributeTypes ?? [];
    return new DirectorySchema((Array.isArray(types) ? types : [types]).map(String));
  }

  /** Whether the schema says the directory keeps `attribute` itself (operational), whatever its name. */
  isOperational(attribute: string): boolean {
    return this.types.get(attribute.toLowerCase())?.operational ?? false;
  }

  /** The syntax of `attribute`, through its SUP chain. */
  private syntaxOf(attribute: string): string | undefined {
    let type = this.types.get(attribute.toLowerCase());
    for (let depth = 0; type && depth < 16; depth++) {
      if (type.syntax) return type.syntax;
      type = type.sup ? this.types.get(type.sup.toLowerCase()) : undefined;
    }
    return undefined;
  }

  /** Why the directory would refuse these values of `attribute` (one message per value at fault), by index; [] when it would not. */
  refusals(attribute: string, values: readonly string[]): Array<{ index?: number; message: string }> {
    if (this.types.get(attribute.toLowerCase())?.singleValue && values.length > 1) {
      return [{ message: `the directory's ${attribute} holds one value` }];
    }
    const rule = SYNTAXES.get(this.syntaxOf(attribute) ?? '');
    if (!rule) return [];
    const [fits, holds] = rule;
    return values.flatMap((value, index) => (fits.test(value) ? [] : [{ index, message: `the directory's ${attribute} holds ${holds}` }]));
  }
}
