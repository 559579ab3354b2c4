/**
 * `javax.portlet.PortletPreferences` of one window for one portal user. Defaults and read-only
 * flags come from the descriptor; stored values are kept per (portal user, page, window). A
 * visitor's are kept in the visitor's portal session only.
 *
 * Values are lists of strings (a value may be null, as in JSR-168). Changes are private to the
 * request until `store()`, which only `processAction` may call (`IllegalStateException` elsewhere),
 * runs the validator, and writes all of them or none.
 */
export interface PortletPreferences {
  isReadOnly(key: string): boolean;
  getValue(key: string, def: string | null): string | null;
  getValues(key: string, def: readonly (string | null)[] | null): readonly (string | null)[] | null;
  /** `ReadOnlyException` for a read-only preference. */
  setValue(key: string, value: string | null): void;
  setValues(key: string, values: readonly (string | null)[]): void;
  getNames(): string[];
  /** A read-only copy. */
  getMap(): Readonly<Record<string, readonly (string | null)[]>>;
  /** Back to the descriptor's default (or removed when it has none); `ReadOnlyException` for a read-only one. */
  reset(key: string): void;
  store(): Promise<void>;
}
