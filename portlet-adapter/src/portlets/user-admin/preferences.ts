/**
 * The User Admin's preferences (SPEC 10.4): page size (5–100), the columns of the result table, and
 * the context it manages (empty: the administrator's own). The validator runs in `store()`; one
 * instance serves every user, so it keeps no state.
 */
import { ValidatorException, type PortletPreferences, type PreferencesValidator } from '../../api';

export const PAGE_SIZE = { min: 5, max: 100, default: 20 };
const NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const CONTEXT = /^[A-Za-z0-9_.-]{0,64}$/;

export interface UserAdminSettings {
  pageSize: number;
  columns: string[];
  /** Empty: the context of the administrator's own subject. */
  context: string;
}

export function settingsOf(preferences: PortletPreferences): UserAdminSettings {
  const size = Number(preferences.getValue('pageSize', String(PAGE_SIZE.default)));
  const columns = (preferences.getValues('columns', ['mail', 'givenName', 'familyName']) ?? []).filter((c): c is string => typeof c === 'string' && NAME.test(c));
  const pageSize = Number.isInteger(size) && size >= PAGE_SIZE.min && size <= PAGE_SIZE.max ? size : PAGE_SIZE.default;
  return { pageSize, columns, context: preferences.getValue('context', '') ?? '' };
}

export class UserAdminPreferencesValidator implements PreferencesValidator {
  validate(preferences: PortletPreferences): void {
    const failed: string[] = [];
    const size = preferences.getValue('pageSize', String(PAGE_SIZE.default)) ?? '';
    if (!/^[0-9]{1,3}$/.test(size) || Number(size) < PAGE_SIZE.min || Number(size) > PAGE_SIZE.max) failed.push('pageSize');
    const columns = preferences.getValues('columns', []) ?? [];
    if (columns.length > 32 || columns.some((c) => c === null || !NAME.test(c))) failed.push('columns');
    if (!CONTEXT.test(preferences.getValue('context', '') ?? '')) failed.push('context');
    if (failed.length) throw new ValidatorException(`invalid preferences: ${failed.join(', ')}`, failed);
  }
}
