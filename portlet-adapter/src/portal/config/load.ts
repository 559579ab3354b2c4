/**
 * Loads the portal's configuration like the core's (SPEC 2): `${ENV}` substitution, the JSON
 * Schema, the checks a schema cannot express (against `portlet.json` too), defaults from
 * defaults.ts, frozen. Every problem is reported by path; any problem stops the portal at start.
 */
import { logSettings } from '../../../../common/src/request-log-settings';
import { dirname, resolve } from 'node:path';
import Ajv from 'ajv';
import { deepFreeze, describeSchemaError, readJsonFile, substituteEnv } from '../../../../common/src/config/document';
import type { PortletApplicationDescriptor } from '../../container/descriptor/types';
import { PORTAL_DEFAULTS } from './defaults';
import { portalConfigSchema } from './schema';
import type { PageConfig, PortalConfig } from './types';

export class PortalConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid portal configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'PortalConfigError';
  }
}

const validate = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(portalConfigSchema);

export interface BuildOptions {
  env?: NodeJS.ProcessEnv;
  /** Relative `descriptor` paths are resolved against it (the configuration file's folder). */
  baseDir?: string;
  /** Command-line flags: they win over the file and the environment (SPEC 1). */
  flags?: { host?: string; port?: number };
}

/** Validates a parsed document and fills the defaults; throws PortalConfigError listing every problem. */
export function buildPortalConfig(document: unknown, options: BuildOptions = {}): PortalConfig {
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const substituted = substituteEnv(structuredClone(document), env, problems);
  if (problems.length) throw new PortalConfigError(problems);
  if (!validate(substituted)) throw new PortalConfigError((validate.errors ?? []).map(describeSchemaError));
  const given = (substituted as { portal: Partial<PortalConfig> & Pick<PortalConfig, 'gateways' | 'portalId' | 'secret' | 'pages'> }).portal;
  const port = options.flags?.port ?? (env.SVC_PORTAL_PORT === undefined ? given.port ?? PORTAL_DEFAULTS.port : Number(env.SVC_PORTAL_PORT));
  if (!(Number.isInteger(port) && port >= 0 && port <= 65535)) throw new PortalConfigError([`${options.flags?.port === undefined ? 'SVC_PORTAL_PORT' : '--port'}: must be a port number`]);
  const host = options.flags?.host ?? env.SVC_HOST ?? given.host ?? PORTAL_DEFAULTS.host;
  const pages: PageConfig[] = given.pages.map((page) => ({
    ...PORTAL_DEFAULTS.page,
    ...page,
    windows: page.windows.map((window) => ({ ...PORTAL_DEFAULTS.window, ...window })),
  }));
  const config: PortalConfig = {
    ...PORTAL_DEFAULTS,
    ...given,
    port,
    host,
    // With port 0 the real port is known only once listening: startPortal fills it in then.
    publicOrigin: given.publicOrigin ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    dataDir: resolve(env.SVC_DATA_DIR ?? given.dataDir ?? PORTAL_DEFAULTS.dataDir),
    descriptor: resolve(options.baseDir ?? process.cwd(), given.descriptor ?? PORTAL_DEFAULTS.descriptor),
    userInfo: { ...(given.userInfo ?? PORTAL_DEFAULTS.userInfo) },
    log: logSettings(given.log),
    pages,
  };
  const pageProblems = checkPages(config.pages);
  if (pageProblems.length) throw new PortalConfigError(pageProblems);
  return deepFreeze(config);
}

/** Duplicate ids (pages; windows within a page). */
function checkPages(pages: readonly PageConfig[]): string[] {
  const problems: string[] = [];
  const pageIds = pages.map((p) => p.id);
  pages.forEach((page, i) => {
    if (pageIds.indexOf(page.id) !== i) problems.push(`portal.pages[${i}].id: page "${page.id}" is defined twice`);
    const windowIds = page.windows.map((w) => w.id);
    page.windows.forEach((window, j) => {
      if (windowIds.indexOf(window.id) !== j) problems.push(`portal.pages[${i}].windows[${j}].id: window "${window.id}" is on the page twice`);
      if (window.visitors === 'only' && window.roles.length > 0) problems.push(`portal.pages[${i}].windows[${j}].roles: a window for visitors only cannot require roles`);
    });
  });
  return problems;
}

/** The windows against the descriptor: each names a portlet it defines, in a mode that portlet supports. */
export function checkAgainstDescriptor(config: PortalConfig, descriptor: PortletApplicationDescriptor): string[] {
  const problems: string[] = [];
  const portlets = new Map(descriptor.portlets.map((p) => [p.name, p]));
  config.pages.forEach((page, i) =>
    page.windows.forEach((window, j) => {
      const portlet = portlets.get(window.portlet);
      if (portlet === undefined) return void problems.push(`portal.pages[${i}].windows[${j}].portlet: no portlet "${window.portlet}" in ${config.descriptor}`);
      const modes = portlet.supports.find((s) => s.mimeType === 'text/html')?.modes ?? ['view'];
      if (!modes.includes(window.mode)) problems.push(`portal.pages[${i}].windows[${j}].mode: portlet "${window.portlet}" does not support ${window.mode}`);
    }),
  );
  return problems;
}

/** Reads and builds the file; `descriptor` is relative to the file's folder. */
export function loadPortalConfigFile(path: string, env: NodeJS.ProcessEnv = process.env, flags?: BuildOptions['flags']): PortalConfig {
  const read = readJsonFile(path);
  if ('problems' in read) throw new PortalConfigError(read.problems);
  return buildPortalConfig(read.document, { env, baseDir: dirname(resolve(path)), flags });
}
