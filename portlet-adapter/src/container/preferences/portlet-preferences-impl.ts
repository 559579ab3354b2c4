import { IllegalArgumentException, IllegalStateException, ReadOnlyException, ValidatorException } from '../../api/exceptions';
import type { PortletPreferences } from '../../api/portlet-preferences';
import type { PreferencesValidator } from '../../api/preferences-validator';
import type { PreferenceDefinition } from '../descriptor/types';

type Values = (string | null)[];

/** At most this many bytes (UTF-8 of the stored JSON) per (portal user, page, window): SPEC 10.1. */
export const MAX_PREFERENCES_BYTES = 64 * 1024;

export interface PreferencesContext {
  definitions: readonly PreferenceDefinition[];
  /** What was stored for this window (values that differ from the defaults). */
  stored: Readonly<Record<string, Values>>;
  /** `store()` is allowed in the action phase only. */
  phase: 'action' | 'render';
  validator?: PreferencesValidator;
  /** Writes the values that differ from the defaults, all at once. */
  save(values: Record<string, Values>): Promise<void>;
}

/**
 * The preferences of one window for one request: defaults from the descriptor, overlaid by the
 * stored values (a read-only preference always has its default). Changes stay in this object until
 * `store()`.
 */
export class PortletPreferencesImpl implements PortletPreferences {
  readonly #values = new Map<string, Values>();
  readonly #defaults = new Map<string, PreferenceDefinition>();

  constructor(private readonly context: PreferencesContext) {
    for (const definition of context.definitions) {
      this.#defaults.set(definition.name, definition);
      this.#values.set(definition.name, [...definition.values]);
    }
    for (const [name, values] of Object.entries(context.stored)) {
      if (this.#defaults.get(name)?.readOnly) continue;
      if (Array.isArray(values) && values.every((v) => v === null || typeof v === 'string')) this.#values.set(name, [...values]);
    }
  }

  isReadOnly(key: string): boolean {
    return this.#defaults.get(checkKey(key))?.readOnly ?? false;
  }

  getValue(key: string, def: string | null): string | null {
    const values = this.#values.get(checkKey(key));
    return values === undefined || values.length === 0 ? def : values[0];
  }

  getValues(key: string, def: readonly (string | null)[] | null): readonly (string | null)[] | null {
    const values = this.#values.get(checkKey(key));
    return values === undefined ? def : [...values];
  }

  setValue(key: string, value: string | null): void {
    this.setValues(key, [value]);
  }

  setValues(key: string, values: readonly (string | null)[]): void {
    if (this.isReadOnly(key)) throw new ReadOnlyException(`preference "${key}" is read-only`);
    if (values === null) return void this.#values.set(key, [null]);
    if (!Array.isArray(values) || values.some((v) => v !== null && typeof v !== 'string')) {
      throw new IllegalArgumentException(`preference "${key}": values must be strings or null`);
    }
    this.#values.set(key, [...values]);
  }

  getNames(): string[] {
    return [...this.#values.keys()];
  }

  getMap(): Readonly<Record<string, readonly (string | null)[]>> {
    return Object.freeze(Object.fromEntries([...this.#values].map(([name, values]) => [name, Object.freeze([...values])])));
  }

  reset(key: string): void {
    if (this.isReadOnly(key)) throw new ReadOnlyException(`preference "${key}" is read-only`);
    const definition = this.#defaults.get(key);
    if (definition === undefined) this.#values.delete(key);
    else this.#values.set(key, [...definition.values]);
  }

  async store(): Promise<void> {
    if (this.context.phase !== 'action') throw new IllegalStateException('store() is allowed in processAction only');
    await this.context.validator?.validate(this);
    const changed: Record<string, Values> = {};
    for (const [name, values] of this.#values) {
      const definition = this.#defaults.get(name);
      if (definition?.readOnly) continue;
      if (definition === undefined || !sameValues(definition.values, values)) changed[name] = [...values];
    }
    if (Buffer.byteLength(JSON.stringify(changed), 'utf8') > MAX_PREFERENCES_BYTES) {
      throw new ValidatorException(`preferences are limited to ${MAX_PREFERENCES_BYTES} bytes; nothing was stored`, Object.keys(changed));
    }
    await this.context.save(changed);
  }
}

function checkKey(key: string): string {
  if (typeof key !== 'string') throw new IllegalArgumentException('a preference name must be a string');
  return key;
}

function sameValues(a: readonly (string | null)[], b: readonly (string | null)[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
