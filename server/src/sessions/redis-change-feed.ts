/**
 * The change feed over Redis pub/sub (change-feed.ts has the rules): channel `<prefix>changes`,
 * messages `[contextId, uniqueId]` as JSON.
 *
 * Subscribing needs a connection of its own (a subscribed connection can do nothing else): a duplicate
 * of the session store's, owned and closed here. ioredis's own resubscription is off: on every
 * `ready` (the first connect and each reconnect) the feed subscribes itself, and once Redis has
 * confirmed the subscription it tells the listener to drop what it cached, so no invalidation
 * published before the confirmation can be missed.
 */
import type Redis from 'ioredis';
import type { Logger } from '../../../common/src/log';
import type { ChangeFeed, ChangeListener } from './change-feed';

export class RedisChangeFeed implements ChangeFeed {
  readonly #publisher: Redis;
  readonly #subscriber: Redis;
  readonly #channel: string;
  readonly #log?: Logger;
  #closed = false;

  /** `redis`: the session store's connection (publishing; its owner closes it). */
  constructor(redis: Redis, prefix: string, log?: Logger) {
    this.#publisher = redis;
    this.#channel = `${prefix}changes`;
    this.#log = log;
    // Named after the channel, so an operator (or a test) can find it in CLIENT LIST.
    const connectionName = this.#channel.replace(/[^\x21-\x7e]/g, '_');
    this.#subscriber = redis.duplicate({ autoResubscribe: false, lazyConnect: true, maxRetriesPerRequest: null, connectionName });
    this.#subscriber.on('error', () => {}); // reconnects on its own; the roles cache's bound covers the gap
  }

  async subscribe(listener: ChangeListener): Promise<void> {
    this.#subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.#channel) return;
      const change = parse(message);
      if (change) listener.changed(change[0], change[1]);
    });
    let first: () => void = () => {};
    const subscribed = new Promise<void>((resolve) => {
      first = resolve;
    });
    const subscribe = async () => {
      await this.#subscriber.subscribe(this.#channel);
      listener.resubscribed();
      first();
    };
    this.#subscriber.on('ready', () => {
      if (this.#closed) return;
      subscribe().catch((error: unknown) => this.#log?.warn({ event: 'change_feed', outcome: 'failure', err: String(error) }, 'could not subscribe to subject changes'));
    });
    await this.#subscriber.connect();
    await subscribed;
  }

  async publish(contextId: string, uniqueId: string): Promise<void> {
    await this.#publisher.publish(this.#channel, JSON.stringify([contextId, uniqueId]));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#subscriber.quit();
    } catch {
      if (this.#subscriber.status !== 'end') this.#subscriber.disconnect();
    }
  }
}

function parse(message: string): [string, string] | undefined {
  try {
    const value: unknown = JSON.parse(message);
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') return [value[0], value[1]];
  } catch {
    // not ours: ignored
  }
  return undefined;
}
