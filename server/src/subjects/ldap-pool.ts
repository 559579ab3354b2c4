import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { ResultCodeError } from 'ldapts';
import { ServiceUnavailable, SvcError } from '../../../common/src/errors';
import type { Logger } from '../../../common/src/log';
import type { LdapSettings } from '../config/types';
import { DirectoryClient } from './ldap-protocol';

/**
 * A small pool of connections bound as the service account (`stores.ldap.bindDN`), and fresh
 * unbound connections for password checks (SPEC 13: a user's bind never happens on a pooled one,
 * whose identity would then change). A connection that fails is dropped, never given out again.
 */
export class LdapPool {
  private readonly idle: DirectoryClient[] = [];
  private readonly waiting: Array<{ resolve: (client: DirectoryClient) => void; reject: (error: unknown) => void }> = [];
  private open = 0;
  private closed = false;
  private readonly tls: ConnectionOptions;

  constructor(
    private readonly settings: LdapSettings,
    private readonly log?: Logger,
  ) {
    this.tls = { ...(settings.caFile ? { ca: readFileSync(settings.caFile) } : {}), minVersion: 'TLSv1.2' };
  }

  /** A new connection, over TLS when `ldaps:` or `startTLS` says so, not bound yet. */
  async connect(): Promise<DirectoryClient> {
    const client = new DirectoryClient({
      url: this.settings.url,
      timeout: this.settings.operationTimeoutMs,
      connectTimeout: this.settings.connectTimeoutMs,
      // ldapts takes TLS options as a wish for TLS from the start: given for ldaps: only.
      ...(this.settings.url.startsWith('ldaps:') ? { tlsOptions: this.tls } : {}),
      strictDN: false,
      // Small requests each waiting for the answer: Nagle's algorithm would hold them back.
      // (ldapts calls it with the URL's port and host.)
      createConnection: ((port: number, host: string) => connect(port, host).setNoDelay(true)) as typeof connect,
    });
    if (this.settings.startTLS && this.settings.url.startsWith('ldap:')) await client.startTLS(this.tls);
    return client;
  }

  /** Runs `body` on a bound connection of the pool; a connection that failed is closed, not returned. */
  async with<T>(body: (client: DirectoryClient) => Promise<T>): Promise<T> {
    if (this.closed) throw new ServiceUnavailable('the subject store is closed');
    const client = await this.acquire();
    let healthy = true;
    try {
      return await body(client);
    } catch (error) {
      // An LDAP result (a refusal of one operation) or svc's own verdict leaves the connection usable;
      // anything else (a socket error, a timeout) may not have.
      healthy = error instanceof ResultCodeError || error instanceof SvcError;
      throw error;
    } finally {
      this.release(client, healthy && !client.worn);
    }
  }

  private async acquire(): Promise<DirectoryClient> {
    for (let ready = this.idle.pop(); ready; ready = this.idle.pop()) {
      // An idle connection the directory closed (a restart, an idle timeout) would reconnect unbound.
      if (ready.isConnected) return ready;
      this.open--;
      ready.unbind().catch(() => {});
    }
    if (this.open >= this.settings.poolSize) return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.open++;
    try {
      const client = await this.connect();
      await client.bind(this.settings.bindDN, this.settings.bindPassword);
      return client;
    } catch (error) {
      this.open--;
      throw error;
    }
  }

  private release(client: DirectoryClient, healthy: boolean): void {
    // A failed or worn connection is closed; a waiter gets a new one.
    if (!healthy || this.closed) {
      this.open--;
      client.unbind().catch(() => {});
      // A waiter gets a new connection instead of the broken one.
      const next = this.waiting.shift();
      if (next) {
        this.acquire().then(next.resolve, (error: unknown) => {
          this.log?.warn({ store: 'ldap', err: String(error) }, 'an LDAP connection could not be opened');
          next.reject(error);
        });
      }
      return;
    }
    const next = this.waiting.shift();
    if (next) next.resolve(client);
    else this.idle.push(client);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = this.idle.splice(0);
    this.open -= all.length;
    await Promise.all(all.map((c) => c.unbind().catch(() => {})));
  }
}
