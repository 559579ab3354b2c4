import type { TestServer } from '../helpers/core-server';
import { send, type Sent } from '../helpers/http';

/**
 * A browser without JavaScript, over real HTTP: it asks for HTML, keeps the session cookie the
 * server sets, and posts forms with its own Origin (or another one, to play a cross-site page).
 */
export class Visitor {
  cookie: string | undefined;

  constructor(private readonly server: TestServer, cookie?: string) {
    this.cookie = cookie;
  }

  get origin(): string {
    return new URL(this.server.baseUrl).origin;
  }

  async get(path: string): Promise<Sent> {
    return this.keep(await send(this.url(path), { cookie: this.cookie, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } }));
  }

  async post(path: string, form: Record<string, string>, headers: Record<string, string> = { origin: this.origin }): Promise<Sent> {
    return this.keep(await send(this.url(path), { form, cookie: this.cookie, headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', ...headers } }));
  }

  /** Logs in through the login form (the web client), as a browser does. */
  async logIn(user: string, password: string): Promise<Sent> {
    const answer = await this.post('/login', { user, password, clientid: 'svc-web' });
    if (answer.status !== 302) throw new Error(`login of ${user} failed: ${answer.status} ${answer.text}`);
    return answer;
  }

  /** The session structure of this visitor's session, as JSON. */
  async session(): Promise<Record<string, unknown>> {
    const answer = await send(this.url('/resources/session'), { cookie: this.cookie, headers: { accept: 'application/json' } });
    return answer.json?.session as Record<string, unknown>;
  }

  private url(path: string): string {
    return this.server.baseUrl + path;
  }

  private keep(answer: Sent): Sent {
    if (answer.cookie !== undefined) this.cookie = answer.cookie === '' ? undefined : answer.cookie;
    return answer;
  }
}

/** Text of an HTML page with entities decoded and tags dropped, for assertions on what a reader sees. */
export function textOf(page: string): string {
  return page
    .replace(/<style>[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)))
    .replace(/\s+/g, ' ')
    .trim();
}

/** The value of a form field (`name="…" value="…"`) in a page, decoded. */
export function fieldValue(page: string, name: string): string | undefined {
  const match = new RegExp(`name="${name.replace(/\./g, '\\.')}"[^>]*?value="([^"]*)"`).exec(page);
  return match ? textOf(match[1]) : undefined;
}

/** Every `name` of an input, text area or select in a page, in order. */
export function fieldNames(page: string): string[] {
  return [...page.matchAll(/<(?:input|textarea)[^>]*?name="([^"]+)"/g)].map((m) => m[1]);
}
