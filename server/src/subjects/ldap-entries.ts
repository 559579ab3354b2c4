import type { Entry } from 'ldapts';
import { NotFound, type FieldError } from '../../../common/src/errors';
import type { ContextConfig, LdapSettings } from '../config/types';
import { ldapAttributeOf } from './filter/to-ldap';
import { DirectorySchema } from './ldap-schema';
import type { SubjectWrite } from './store';
import { valuesOf, type Attributes, type StoredSubject } from './subject';

/** What the store must know of a context's definition to map entries (a directory has no JSON column). */
export interface LdapContextShape {
  /** svc attribute names an entry may carry (the password excluded: the directory keeps it). */
  attributes: readonly string[];
  multivalued: ReadonlySet<string>;
  /** svc attributes that are login names besides uniqueId (`definition.authenid`). */
  loginAttributes: readonly string[];
}

/** Each context's shape from its definition: every attribute but the password, which the directory keeps. */
export function ldapShapes(contexts: readonly ContextConfig[]): Map<string, LdapContextShape> {
  return new Map(
    contexts.map((c) => {
      const defined = Object.entries(c.definition.attributes).filter(([name]) => name !== c.definition.password);
      return [
        c.id,
        {
          attributes: defined.map(([name]) => name),
          multivalued: new Set(defined.filter(([, d]) => d.multivalued).map(([name]) => name)),
          loginAttributes: c.definition.authenid.filter((name) => name !== 'uniqueId'),
        },
      ];
    }),
  );
}

/** svc's bookkeeping attributes (ldap/svc.ldif). */
const BOOKKEEPING = ['svcId', 'svcKey', 'svcVersion', 'svcCreated', 'svcModified', 'entryCSN', 'createTimestamp', 'modifyTimestamp'];
/** An entry as read: the subject, and the entryCSN a conditional modify asserts and a reset link is bound to. */
export interface Read {
  subject: StoredSubject;
  csn: string;
  dn: string;
  /** Its svcKey values: the folded login names and unique values it claims ([] on an entry svc has not written). */
  keys: string[];
}

/** `20240102030405Z` or `20240102030405.123456Z` (generalizedTime) → ISO 8601. */
function fromGeneralizedTime(text: string): string {
  const m = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)(?:[.,](\d+))?Z$/.exec(text);
  if (!m) return new Date(0).toISOString();
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${(m[7] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}

/**
 * Between a context's subjects and directory entries (ldap-store.ts): which attributes to read, an
 * entry as a subject (values by the definition's multiplicity, svc's bookkeeping as version and
 * times), and a write as an entry's attributes.
 */
export class LdapEntries {
  /** A definition attribute (or `uniqueId`) → its directory attribute. */
  readonly attribute: (name: string) => string;
  /** The directory's rules for values (ldap-store.ts reads them at open; none until then). */
  schema = new DirectorySchema([]);

  constructor(
    private readonly settings: LdapSettings,
    private readonly contexts: ReadonlyMap<string, LdapContextShape>,
  ) {
    this.attribute = ldapAttributeOf(settings.idAttribute, settings.attributeMap);
  }

  shape(context: string): LdapContextShape {
    const shape = this.contexts.get(context);
    if (!shape) throw new NotFound(`context ${context} is not in the directory store`);
    return shape;
  }

  /** What a read asks for: the id, the mapped attributes, svc's bookkeeping (never userPassword). */
  readAttributes(context: string): string[] {
    return [this.settings.idAttribute, ...this.shape(context).attributes.map(this.attribute), ...BOOKKEEPING];
  }

  /** An entry → the subject (values by the definition's multiplicity; bookkeeping to version and times). */
  toRead(context: string, entry: Entry): Read {
    const shape = this.shape(context);
    const lower = new Map(Object.entries(entry).map(([k, v]) => [k.toLowerCase(), v]));
    const strings = (name: string): string[] => {
      const value = lower.get(name.toLowerCase());
      if (value === undefined) return [];
      return (Array.isArray(value) ? value : [value]).map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
    };
    const attributes: Attributes = {};
    for (const name of shape.attributes) {
      const values = strings(this.attribute(name));
      if (values.length) attributes[name] = shape.multivalued.has(name) ? values : values[0];
    }
    const uniqueId = strings('svcId')[0] ?? strings(this.settings.idAttribute)[0] ?? '';
    const created = strings('svcCreated')[0] ?? fromGeneralizedTime(strings('createTimestamp')[0] ?? '');
    const modified = strings('svcModified')[0] ?? fromGeneralizedTime(strings('modifyTimestamp')[0] ?? '');
    return {
      subject: { uniqueId, attributes, version: Number(strings('svcVersion')[0] ?? 1), created, modified },
      csn: strings('entryCSN')[0] ?? '',
      dn: entry.dn,
      keys: strings('svcKey'),
    };
  }

  /** The entry's attributes for a write: mapped attributes, its keys and bookkeeping. */
  entryAttributes(context: string, write: SubjectWrite, version: number, created: string, modified: string): Record<string, string[]> {
    const shape = this.shape(context);
    const out: Record<string, string[]> = {};
    for (const name of shape.attributes) {
      // A directory holds no empty value: an empty string or list is the attribute's absence.
      out[this.attribute(name)] = valuesOf(write.attributes[name]).filter((v) => v !== '');
    }
    out[this.settings.idAttribute] = [write.uniqueId];
    out.svcId = [write.uniqueId];
    out.svcKey = [...new Set(write.keys)];
    out.svcVersion = [String(version)];
    out.svcCreated = [created];
    out.svcModified = [modified];
    return out;
  }

  /**
   * What the directory would refuse in this write (a value its attribute's syntax cannot hold: a
   * non-ASCII mail in an IA5 String; two values in a single-valued attribute), by the path of the
   * svc attribute, as CREATE and UPDATE name their fields.
   */
  refusals(context: string, write: SubjectWrite): FieldError[] {
    const errors: FieldError[] = [];
    for (const name of this.shape(context).attributes) {
      const value = write.attributes[name];
      const values = valuesOf(value).filter((v) => v !== '');
      for (const { index, message } of this.schema.refusals(this.attribute(name), values)) {
        const at = index === undefined || !Array.isArray(value) ? '' : `[${value.indexOf(values[index])}]`;
        errors.push({ path: `subject.attributes.${name}${at}`, message });
      }
    }
    return errors;
  }

  /** The svc attribute a directory attribute holds (for the directory's own refusals), or that name when none does. */
  svcAttributeOf(directoryAttribute: string): string {
    const wanted = directoryAttribute.toLowerCase();
    for (const shape of this.contexts.values()) {
      const name = shape.attributes.find((n) => this.attribute(n).toLowerCase() === wanted);
      if (name !== undefined) return name;
    }
    return directoryAttribute;
  }

  /** The subject as a read gives it back (values the directory cannot hold dropped). */
  clean(context: string, subject: StoredSubject): StoredSubject {
    const shape = this.shape(context);
    const attributes: Attributes = {};
    for (const [name, value] of Object.entries(subject.attributes)) {
      if (!shape.attributes.includes(name)) continue;
      const values = valuesOf(value).filter((v) => v !== '');
      if (values.length) attributes[name] = shape.multivalued.has(name) ? values : values[0];
    }
    return { ...subject, attributes };
  }

}
