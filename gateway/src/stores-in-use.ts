import type { StoreInUse } from '../../common/src/workers/shared-stores';
import type { GatewayConfig } from './config';

/**
 * What the gateway keeps where, by its configuration: `gateway.redis` shares the assertion replay
 * cache and the map from portal principal to core session (SPEC section 12, "Gateways"); without
 * it both are in this process. `svc gateway --workers N` is refused unless they are shared.
 */
export function gatewayStoresInUse(config: GatewayConfig): StoreInUse[] {
  const kind = config.redis ? 'redis' : 'absent';
  return ['assertion replay cache', 'core sessions held for portal principals'].map((what) => ({
    what,
    setting: 'gateway.redis',
    kind,
    shared: config.redis !== undefined,
    fix: 'configure gateway.redis',
  }));
}
