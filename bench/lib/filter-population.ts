/**
 * Subjects as an identity provider provisions them over SCIM (issue 30): a `userName` (a UPN), an
 * `externalId` (the IdP's own id, a UUID), a `mail`, names and a role, written as the service writes
 * them (every readable value folded into the store's search values), for the filter index test
 * (test/subjects/filter-index.test.ts) and the scim-filter bench scenario. Deterministic: subject i
 * is the same at every size, so a query finds the same subject in a small and a large population.
 */
import { fold } from '../../server/src/subjects/subject';
import type { ImportedSubject } from '../../server/src/subjects/store';

const GIVEN = ['Ada', 'Ben', 'Cleo', 'Dan', 'Eva', 'Finn', 'Gia', 'Hugo', 'Ines', 'Jon'];
const FAMILY = ['Berg', 'Dahl', 'Eriksen', 'Holm', 'Lund', 'Moe', 'Nilsen', 'Strand', 'Vik', 'Aas'];

/** The attributes of subject i. */
export function provisioned(i: number): { uniqueId: string; userName: string; externalId: string; mail: string; givenName: string; familyName: string } {
  const n = String(i).padStart(6, '0');
  const givenName = GIVEN[i % GIVEN.length];
  const familyName = FAMILY[Math.floor(i / GIVEN.length) % FAMILY.length];
  return {
    uniqueId: `u${n}`,
    userName: `${givenName}.${familyName}.${n}@Corp.Example.com`,
    externalId: `7f4bc1a3-285e-48ae-8202-${i.toString(16).padStart(12, '0')}`,
    mail: `${givenName.toLowerCase()}.${n}@example.com`,
    givenName,
    familyName,
  };
}

/** Subjects [start, end) as the store imports them. */
export function provisionedSubjects(start: number, end: number, at = new Date().toISOString()): ImportedSubject[] {
  const subjects: ImportedSubject[] = [];
  for (let i = start; i < end; i++) {
    const { uniqueId, ...attributes } = provisioned(i);
    const indexed: Array<[string, string]> = [['uniqueId', fold(uniqueId)]];
    for (const [name, value] of Object.entries(attributes)) indexed.push([name, fold(value)]);
    indexed.push(['roles', 'user']);
    subjects.push({
      write: { uniqueId, attributes: { ...attributes, roles: ['user'] }, keys: [`login:${fold(uniqueId)}`, `login:${fold(attributes.userName)}`], indexed },
      created: at,
      modified: at,
    });
  }
  return subjects;
}

/** The three lookups an identity provider makes (SPEC 14) for subject i; userName and mail in another letter case than stored. */
export function providerLookups(i: number): Array<[label: string, filter: string]> {
  const p = provisioned(i);
  return [
    ['userName eq', `userName eq "${p.userName.toUpperCase()}"`],
    ['externalId eq', `externalId eq "${p.externalId}"`],
    ['mail eq (emails.value eq)', `mail eq "${p.mail.toUpperCase()}"`],
  ];
}
