/**
 * `expirationCache` (SPEC 10.1): a window's render output kept per (portal session, page, window,
 * mode, state, render parameters) for the descriptor's seconds (-1: until an action targets the
 * window), never for visitors. Entries live in the portal session's container data, one per window
 * (a new key replaces the old), so the cache ends with the session and never serves one session's
 * markup to another.
 */
import type { ApplicationSession } from './services';

const CACHE = 'renderCache';

export interface CachedRender {
  title: string;
  markup: string;
}

interface Entry extends CachedRender {
  key: string;
  /** Milliseconds since the epoch; Infinity for -1. */
  expiresAt: number;
}

export class ExpirationCache {
  constructor(private readonly now: () => number = Date.now) {}

  get(session: ApplicationSession, pageId: string, windowId: string, key: string): CachedRender | undefined {
    const entry = entries(session, false)?.get(`${pageId}/${windowId}`);
    if (entry === undefined || entry.key !== key || entry.expiresAt <= this.now()) return undefined;
    return { title: entry.title, markup: entry.markup };
  }

  put(session: ApplicationSession, pageId: string, windowId: string, key: string, seconds: number, render: CachedRender): void {
    if (seconds === 0) return;
    const expiresAt = seconds < 0 ? Infinity : this.now() + seconds * 1000;
    entries(session, true)!.set(`${pageId}/${windowId}`, { key, expiresAt, ...render });
  }

  /** An action aimed at the window drops its entry. */
  invalidate(session: ApplicationSession | undefined, pageId: string, windowId: string): void {
    if (session !== undefined) entries(session, false)?.delete(`${pageId}/${windowId}`);
  }
}

/** Every entry of the session: what it may see changed (a step-up: controls that asked for one now pass). */
export function dropRenderCache(session: ApplicationSession): void {
  session.containerData.delete(CACHE);
}

function entries(session: ApplicationSession, create: boolean): Map<string, Entry> | undefined {
  let map = session.containerData.get(CACHE) as Map<string, Entry> | undefined;
  if (map === undefined && create) session.containerData.set(CACHE, (map = new Map()));
  return map;
}
