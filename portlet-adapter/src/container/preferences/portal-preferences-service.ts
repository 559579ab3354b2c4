import type { PreferencesKey, PreferencesOwner, PreferencesService } from '../services';
import type { SqlitePreferencesStore } from './sqlite-preferences-store';

type Values = (string | null)[];

interface VisitorEntry {
  portletName: string;
  values: Record<string, Values>;
}

/** The container's own key in a session's `containerData`. */
const VISITOR_PREFERENCES = 'preferences';

/**
 * The default PreferencesService: a portal user's preferences in SQLite, kept across restarts; a
 * visitor's in the visitor's portal session only (made by the visitor's first `store()`, carried in
 * the visitor's cookie within its budget), ended with it.
 */
export class PortalPreferencesService implements PreferencesService {
  constructor(private readonly users: SqlitePreferencesStore) {}

  async load(owner: PreferencesOwner, key: PreferencesKey): Promise<Record<string, Values>> {
    if (owner.kind === 'user') return this.users.load(owner.name, key);
    const entries = owner.session.current()?.containerData.get(VISITOR_PREFERENCES) as Map<string, VisitorEntry> | undefined;
    const entry = entries?.get(`${key.pageId}/${key.windowId}`);
    return entry !== undefined && entry.portletName === key.portletName ? structuredClone(entry.values) : {};
  }

  async store(owner: PreferencesOwner, key: PreferencesKey, values: Record<string, Values>): Promise<void> {
    if (owner.kind === 'user') return this.users.store(owner.name, key, values);
    const session = owner.session.create();
    const data = session.containerData;
    let entries = data.get(VISITOR_PREFERENCES) as Map<string, VisitorEntry> | undefined;
    if (entries === undefined) data.set(VISITOR_PREFERENCES, (entries = new Map()));
    const entryKey = `${key.pageId}/${key.windowId}`;
    const previous = entries.get(entryKey);
    if (Object.keys(values).length === 0) entries.delete(entryKey);
    else entries.set(entryKey, { portletName: key.portletName, values: structuredClone(values) });
    try {
      // A visitor's session travels in its cookie: preferences that would not fit are not stored.
      session.assertWithinBudget?.();
    } catch (error) {
      if (previous === undefined) entries.delete(entryKey);
      else entries.set(entryKey, previous);
      throw error;
    }
  }
}
