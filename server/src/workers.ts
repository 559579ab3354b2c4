import type { Logger } from '../../common/src/log';
import { unsharedStores } from '../../common/src/workers/shared-stores';
import { superviseWorkers } from '../../common/src/workers/supervisor';
import type { SvcConfig } from './config/types';
import { DecoyQuestions } from './flows/decoy-questions';
import { coreStoresInUse } from './stores-in-use';

/** Throws the refusal of `svc server --workers N` when a store the configuration uses is not shared. */
export function assertCoreStoresShared(config: SvcConfig, workers: number): void {
  const refusal = unsharedStores(`svc server --workers ${workers}`, coreStoresInUse(config));
  if (refusal) throw refusal;
}

/**
 * The primary of `svc server --workers N`: refuses unshared stores, makes what the workers would
 * otherwise race to create in the data directory (the decoy questions' key), then supervises N
 * workers on one port. Resolves with their URL once all listen.
 */
export function superviseCoreWorkers(config: SvcConfig, workers: number, log: Logger): Promise<string> {
  assertCoreStoresShared(config, workers);
  new DecoyQuestions(config.server.dataDir);
  log.info({ workers }, 'starting workers');
  return superviseWorkers({ workers, log });
}
