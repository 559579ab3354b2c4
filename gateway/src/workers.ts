import type { Logger } from '../../common/src/log';
import { unsharedStores } from '../../common/src/workers/shared-stores';
import { superviseWorkers } from '../../common/src/workers/supervisor';
import type { GatewayConfig } from './config';
import { gatewayStoresInUse } from './stores-in-use';

/** Throws the refusal of `svc gateway --workers N` when the gateway's state is not shared (no `gateway.redis`). */
export function assertGatewayStoresShared(config: GatewayConfig, workers: number): void {
  const refusal = unsharedStores(`svc gateway --workers ${workers}`, gatewayStoresInUse(config));
  if (refusal) throw refusal;
}

/** The primary of `svc gateway --workers N`: refuses unshared state, then supervises N workers on one port. */
export function superviseGatewayWorkers(config: GatewayConfig, workers: number, log: Logger): Promise<string> {
  assertGatewayStoresShared(config, workers);
  log.info({ workers }, 'starting workers');
  return superviseWorkers({ workers, log, reloadOnHangup: false });
}
