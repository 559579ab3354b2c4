import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'ldapts';
import { DEFAULT_LDAP } from '../../server/src/config/defaults';
import type { LdapSettings } from '../../server/src/config/types';
import type { Requirement } from './services';

/** Debian's slapd, which test/ldap/slapd.sh runs as a throwaway directory. */
export const SLAPD_PATH = '/usr/sbin/slapd';
const SCRIPT = resolve(__dirname, '../ldap/slapd.sh');

/** slapd (and ldapwhoami) as a requirement: there when their executables are. */
export function slapdRequirement(path = SLAPD_PATH): Requirement {
  try {
    accessSync(path, constants.X_OK);
    accessSync('/usr/bin/ldapwhoami', constants.X_OK);
    return { name: 'slapd', url: path, reachable: true, kind: 'program' };
  } catch {
    return { name: 'slapd', url: path, reachable: false, reason: 'apt-get install -y slapd ldap-utils', kind: 'program' };
  }
}

/** A running throwaway directory (test/ldap/slapd.sh): its address, its accounts, and how to stop it. */
export interface Slapd {
  url: string;
  baseDN: string;
  bindDN: string;
  bindPassword: string;
  adminDN: string;
  adminPassword: string;
  /** The CA of its certificate, and its ldaps:// address, when started with TLS. */
  ca?: string;
  ldapsUrl?: string;
  /** `stores.ldap` for svc on this directory, with the attribute map of the demo's contexts. */
  settings(more?: Partial<LdapSettings>): LdapSettings;
  /** Stops slapd and starts it again on the same port and database (its connections all close). */
  restart(): Promise<void>;
  /** Deletes every subject of these contexts (a fresh store for the next test). */
  clear(contexts: string[]): Promise<void>;
  stop(): void;
}

/** The object classes svc's test entries use: `account` (only uid is required) and svc's auxiliary class. */
export const TEST_OBJECT_CLASSES = ['account', 'svcSubject'];

export function startSlapd(options: { tls?: boolean; contexts?: string[] } = {}): Slapd {
  const dir = mkdtempSync(join(tmpdir(), 'svc-slapd-'));
  const args = ['start', dir, ...(options.tls ? ['--tls'] : []), ...(options.contexts ? ['--contexts', options.contexts.join(' ')] : [])];
  const result = spawnSync(SCRIPT, args, { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`test/ldap/slapd.sh failed (${String(result.status)}): ${result.stderr}`);
  const env = Object.fromEntries(result.stdout.trim().split('\n').map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]));
  const slapd: Slapd = {
    url: env.SVC_LDAP_URL,
    baseDN: env.SVC_LDAP_BASE_DN,
    bindDN: env.SVC_LDAP_BIND_DN,
    bindPassword: env.SVC_LDAP_BIND_PASSWORD,
    adminDN: env.SVC_LDAP_ADMIN_DN,
    adminPassword: env.SVC_LDAP_ADMIN_PASSWORD,
    ca: env.SVC_LDAP_CA,
    ldapsUrl: env.SVC_LDAPS_URL,
    settings: (more = {}) => ({
      ...DEFAULT_LDAP,
      objectClasses: TEST_OBJECT_CLASSES,
      url: slapd.url,
      bindDN: slapd.bindDN,
      bindPassword: slapd.bindPassword,
      baseDN: slapd.baseDN,
      ...more,
    }),
    async clear(contexts) {
      const client = new Client({ url: slapd.url });
      try {
        await client.bind(slapd.adminDN, slapd.adminPassword);
        for (const context of contexts) {
          const base = `ou=${context},${slapd.baseDN}`;
          const { searchEntries } = await client.search(base, { scope: 'one', filter: '(objectClass=*)', attributes: ['1.1'] }).catch(() => ({ searchEntries: [] }));
          // In batches: slapd drops a connection with too many operations pending.
          for (let i = 0; i < searchEntries.length; i += 50) await Promise.all(searchEntries.slice(i, i + 50).map((e) => client.del(e.dn)));
        }
      } finally {
        await client.unbind();
      }
    },
    async restart() {
      const pid = Number(readFileSync(join(dir, 'slapd.pid'), 'utf8'));
      const args = readFileSync(join(dir, 'slapd.args'), 'utf8').trim().split(/\s+/);
      process.kill(pid, 'SIGTERM');
      while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
      const started = spawnSync(args[0], args.slice(1), { timeout: 30_000 });
      if (started.status !== 0) throw new Error(`slapd did not start again: ${String(started.stderr)}`);
      while (!ldapwhoami(slapd.url, slapd.bindDN, slapd.bindPassword)) await new Promise((resolve) => setTimeout(resolve, 50));
    },
    stop: () => {
      spawnSync(SCRIPT, ['stop', dir], { timeout: 30_000 });
    },
  };
  return slapd;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `ldapwhoami` (ldap-utils) binding as `dn` with `password`: whether the directory accepted the bind. */
export function ldapwhoami(url: string, dn: string, password: string): boolean {
  return spawnSync('/usr/bin/ldapwhoami', ['-x', '-H', url, '-D', dn, '-w', password], { timeout: 30_000 }).status === 0;
}
