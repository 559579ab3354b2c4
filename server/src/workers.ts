import type { Logger } from '../../common/src/log';
import { unsharedStores } from '../../common/src/workers/shared-stores';
import { superviseWorkers } from '../../common/src/workers/supervisor';
import type { SvcConfig } from './config/types';
import { coreStoresInUse } from './stores-in-use';

/** Throws the refusal of `svc server --workers N` when a store the configuration uses is not shared. */
export function assertCoreStoresShared(config: SvcConfig, workers: number): void {
  const refusal = unsharedStores(`svc server --workers ${workers}`, coreStoresInUse(config));
  if (refusal) throw refusal;
}

/**
 * The primary of `svc server --workers N`: refuses unshared stores, then supervises N workers on one
 * port. Nothing is made in the data directory for them to race on: with sessions in Redis the
 * decoy questions' key is there too (and decoy.key, when used, is created atomically).
 */
export function superviseCoreWorkers(config: SvcConfig, workers: number, log: Logger): Promise<string> {
  assertCoreStoresShared(config, workers);
  log.info({ workers }, 'starting workers');
  return superviseWorkers({ workers, log, reloadOnHangup: true });
}
