/** The core server's public entry points (`svc/server`). */
export { startServer, type RunningServer } from './server';
export { Core, type CoreOptions } from './core';
export { buildConfig, loadConfigFile, ConfigError } from './config/load';
export type { SvcConfig } from './config/types';
export { configSchema } from './config/schema';
