import type { PolicyConfig } from '../config/types';
import type { SvcConfig } from '../config/types';

/** The running configuration as SYSTEM may see it: no secret, no hash, no authenticator options. */
export interface ConfigView {
  clients: Array<{ id: string; authenticators: string[]; contexts: string[]; defaultContext?: string; allowPrincipalAssertion: boolean; hasSecret: boolean }>;
  contexts: Array<{ id: string; store: string; registration: boolean; forgottenPassword: boolean; searchAttributes: string[] }>;
  authenticators: Array<{ id: string; kind: string; variant: string; sessionType: string; context: string | null }>;
  policies: PolicyConfig[];
  reservedIds: string[];
  system: { userId: string } | null;
}

/** The JSON of `GET {base}/config` and what the config page shows. */
export function configView(c: SvcConfig): ConfigView {

  return {
    clients: c.clients.map((client) => ({
      id: client.id,
      authenticators: client.authenticators,
      contexts: client.contexts,
      defaultContext: client.defaultContext,
      allowPrincipalAssertion: Boolean(client.allowPrincipalAssertion),
      hasSecret: Boolean(client.secret?.length),
    })),
    contexts: c.contexts.map((context) => ({
      id: context.id,
      store: context.store,
      registration: context.registration.enabled,
      forgottenPassword: context.forgottenPassword.enabled,
      searchAttributes: context.searchAttributes,
    })),
    // Variant options can hold introspection credentials, so only the identity is listed.
    authenticators: c.authenticators.map((a) => ({ id: a.id, kind: a.kind, variant: a.variant, sessionType: a.sessionType, context: a.context ?? null })),
    policies: c.policies,
    reservedIds: c.reservedIds,
    system: c.system ? { userId: c.system.userId } : null,
  };
}
