import type { PortletPreferences } from './portlet-preferences';

/**
 * `javax.portlet.PreferencesValidator`, named by the descriptor's `preferencesValidator`. One
 * instance per portlet definition, shared by every user: it must keep no per-request state.
 * `store()` runs it first; a `ValidatorException` (naming the failed keys) means nothing is stored.
 */
export interface PreferencesValidator {
  validate(preferences: PortletPreferences): void | Promise<void>;
}

export type PreferencesValidatorClass = new () => PreferencesValidator;
