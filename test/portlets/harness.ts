/**
 * Runs the real container on a real descriptor file and a real SQLite preferences file, with the
 * portal side of each request (session, URLs) made as the driver makes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PortletMode } from '../../portlet-adapter/src/api/portlet-mode';
import { WindowState } from '../../portlet-adapter/src/api/window-state';
import {
  MemoryApplicationSession,
  NO_PARAMETERS,
  PortalPreferencesService,
  PortletContainer,
  SqlitePreferencesStore,
  loadPortletApplication,
  type ContainerLog,
  type ContainerOptions,
  type Parameters,
  type PortalRequest,
  type PortalUser,
  type SessionAccess,
  type WindowRenderState,
} from '../../portlet-adapter/src/container';
import { PageUrlProvider } from '../../portlet-adapter/src/portal/page-url-provider';
import { SvcPortalContext } from '../../portlet-adapter/src/portal/portal-context';

export const FIXTURES = join(__dirname, 'fixtures');

/** A descriptor entry naming a fixture module by file and export. */
export function fixture(file: string, exportName: string): string {
  return `${join(FIXTURES, file)}#${exportName}`;
}

export const COUNTER = { name: 'counter', module: fixture('counter.ts', 'CounterPortlet'), title: 'Counter', supports: [{ mimeType: 'text/html', modes: ['view', 'edit', 'help'] }], preferences: [{ name: 'color', values: ['blue'] }], securityRoleRefs: [{ roleName: 'administrator', roleLink: 'admin' }] };

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

export class CapturingLog implements ContainerLog {
  readonly lines: LogLine[] = [];
  info(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level: 'info', fields, message });
  }
  warn(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level: 'warn', fields, message });
  }
  error(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level: 'error', fields, message });
  }
}

export interface Harness {
  container: PortletContainer;
  log: CapturingLog;
  dir: string;
  store: SqlitePreferencesStore;
  /** Stops the container (destroy) and closes the store, once; the directory stays until `cleanup`. */
  stop(): Promise<void>;
  /** A new container on the same descriptor and preferences file: a portal restart. */
  restart(): Promise<Harness>;
  cleanup(): void;
}

export interface HarnessOptions extends Partial<ContainerOptions> {
  dir?: string;
  userInfo?: Record<string, string>;
}

export async function startContainer(portlets: object[], options: HarnessOptions = {}): Promise<Harness> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'svc-portlets-'));
  const descriptorPath = join(dir, 'portlet.json');
  writeFileSync(descriptorPath, JSON.stringify({ application: 'test', portlets }));
  const log = new CapturingLog();
  const store = new SqlitePreferencesStore(join(dir, 'portal.db'));
  const container = await PortletContainer.start(
    await loadPortletApplication(descriptorPath),
    {
      portalContext: new SvcPortalContext('svc-portal/test'),
      preferences: new PortalPreferencesService(store),
      userInfo: { getUserInfo: async () => options.userInfo ?? {} },
      log,
    },
    { timeLimitMs: options.timeLimitMs ?? 5000, lifecycleTimeoutMs: options.lifecycleTimeoutMs, now: options.now },
  );
  let stopped = false;
  const harness: Harness = {
    container,
    log,
    dir,
    store,
    async stop() {
      if (stopped) return;
      stopped = true;
      await container.destroy();
      store.close();
    },
    async restart() {
      await harness.stop();
      return startContainer(portlets, { ...options, dir });
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
  return harness;
}

/** A portal session as the driver keeps one: a user's exists from login, a visitor's from the first write. */
export class TestSession implements SessionAccess {
  state: MemoryApplicationSession | undefined;
  constructor(
    readonly handle: string,
    loggedIn: boolean,
  ) {
    if (loggedIn) this.state = new MemoryApplicationSession(1800);
  }
  current(): MemoryApplicationSession | undefined {
    return this.state;
  }
  create(): MemoryApplicationSession {
    return (this.state ??= new MemoryApplicationSession(1800));
  }
}

export interface Caller {
  user: PortalUser | null;
  session: TestSession;
}

export function user(name: string, roles: string[] = []): Caller {
  return { user: { name, roles }, session: new TestSession(`session-${name}`, true) };
}

export function visitor(handle = 'visitor-1'): Caller {
  return { user: null, session: new TestSession(handle, false) };
}

/** The PortalRequest of one page request by `caller`, with URLs for `windows` in their states. */
export function portalRequest(caller: Caller, windows: Record<string, WindowRenderState> = {}, pageId = 'home'): PortalRequest {
  const urlStates = new Map(Object.entries(windows).map(([id, w]) => [id, { mode: w.mode.toString(), state: w.state.toString(), parameters: w.parameters }]));
  return {
    requestId: `req-${Math.random().toString(36).slice(2)}`,
    pageId,
    user: caller.user,
    session: caller.session,
    locales: ['en'],
    secure: false,
    scheme: 'http',
    serverName: '127.0.0.1',
    serverPort: 8082,
    contextPath: '/portal',
    properties: {},
    attributes: {},
    urls: new PageUrlProvider({ root: '/portal', pageId, windows: urlStates }, 'csrf-token', 'http://127.0.0.1:8082', false),
  };
}

export function state(parameters: Parameters = NO_PARAMETERS, mode = PortletMode.VIEW, windowState = WindowState.NORMAL): WindowRenderState {
  return { mode, state: windowState, parameters };
}

export const FORM: { bytes: Buffer; contentType: string; isForm: boolean } = { bytes: Buffer.alloc(0), contentType: 'application/x-www-form-urlencoded', isForm: true };

/** The data-* attributes of the element with this id in a window's markup. */
export function dataOf(markup: string, id: string): Record<string, string> {
  const match = new RegExp(`<[a-z]+ id="${id}"([^>]*)>`).exec(markup);
  if (!match) throw new Error(`no element #${id} in ${markup}`);
  const out: Record<string, string> = {};
  for (const [, name, value] of match[1].matchAll(/data-([a-z]+)="([^"]*)"/g)) out[name] = value.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
  return out;
}
