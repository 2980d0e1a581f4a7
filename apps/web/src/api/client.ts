/**
 * The dashboard's one API client: the only module that knows how requests travel. In a browser
 * served by the team server it uses `fetch` against `/api/v1` on the same origin with the
 * httpOnly `mcp_session` cookie (no token is ever stored in script-readable storage); the
 * desktop app installs another transport with `setTransport` and reuses everything else.
 *
 * Every state-changing request carries `content-type: application/json` (the server answers 415
 * to other types on JSON routes and refuses cross-site cookie writes: server/src/http/csrf.ts).
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ApiRequest {
  readonly method: Method;
  /** Path under /api/v1, with its query string, e.g. `/findings?status=open`. */
  readonly path: string;
  /** JSON body (serialised by the transport), or raw text for the ingest routes. */
  readonly json?: unknown;
  readonly text?: string;
  readonly signal?: AbortSignal;
  /** Where `path` lives: the public API (default, API_BASE) or the desktop app's own routes (DESKTOP_API_BASE). */
  readonly base?: typeof API_BASE | typeof DESKTOP_API_BASE;
}

export interface ApiResponse {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers: { get(name: string): string | null };
}

/** How a request travels: fetch in a browser, an IPC bridge in the desktop app. */
export type Transport = (request: ApiRequest) => Promise<ApiResponse>;

/** A non-2xx answer: `status` and the server's `{detail}` (or the raw text). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(detail);
  }
}

export const API_BASE = '/api/v1';
/** The desktop app's own routes (sync, Ollama), answered by its main process: apps/desktop/src/core/desktop-routes.ts. */
export const DESKTOP_API_BASE = '/api/desktop';

/** The absolute path a transport sends `request` to: its base (default API_BASE) + its path. */
export function requestPath(request: ApiRequest): string {
  return (request.base ?? API_BASE) + request.path;
}

/** The browser transport: same-origin fetch with the session cookie. */
export const fetchTransport: Transport = async (request) => {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.text !== undefined) {
    headers['content-type'] = 'text/plain; charset=utf-8';
    body = request.text;
  } else if (request.method !== 'GET') {
    // No body: still declare JSON, so a body-less write is indistinguishable from a JSON one.
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(requestPath(request), { method: request.method, headers, body, credentials: 'same-origin', signal: request.signal });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text(), headers: res.headers };
};

let transport: Transport = fetchTransport;
let desktop = false;
let onUnauthorized: (() => void) | null = null;

/**
 * Replaces how requests travel (the desktop app's bridge). `desktop: true` says the dashboard
 * runs inside the desktop app, which shows its own pages (isDesktop).
 */
export function setTransport(next: Transport, where: { desktop?: boolean } = {}): void {
  transport = next;
  desktop = where.desktop ?? false;
}

/** True when the dashboard runs inside the desktop app (its transport said so); false in a browser. */
export function isDesktop(): boolean {
  return desktop;
}

/** Called on every 401 of an authenticated call (the app sends the user to /login and back). */
export function setUnauthorizedHandler(handler: (() => void) | null): void {
  onUnauthorized = handler;
}

function parse(res: ApiResponse): unknown {
  if (!res.body) return null;
  if (res.contentType.includes('json')) {
    try {
      return JSON.parse(res.body);
    } catch {
      return res.body;
    }
  }
  return res.body;
}

/**
 * Sends one request and returns the parsed body (JSON, else text). Throws ApiError for any
 * status ≥ 400; a 401 also calls the unauthorised handler unless `quiet401` (the sign-in calls).
 */
export async function call<T>(request: ApiRequest, options: { quiet401?: boolean } = {}): Promise<T> {
  const res = await transport(request);
  const body = parse(res);
  if (res.status >= 400) {
    const detail = body && typeof body === 'object' && 'detail' in body ? String((body as { detail: unknown }).detail) : `HTTP ${res.status}`;
    if (res.status === 401 && !options.quiet401) onUnauthorized?.();
    throw new ApiError(res.status, detail, body);
  }
  return body as T;
}

/** Builds a query string from defined, non-empty values (`?a=1&b=x`, or ''). */
export function query(params: Record<string, string | number | boolean | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => call<T>({ method: 'GET', path, signal }),
  post: <T>(path: string, json?: unknown) => call<T>({ method: 'POST', path, json: json ?? {} }),
  put: <T>(path: string, json: unknown) => call<T>({ method: 'PUT', path, json }),
  patch: <T>(path: string, json: unknown) => call<T>({ method: 'PATCH', path, json }),
  delete: <T>(path: string) => call<T>({ method: 'DELETE', path }),
  postText: <T>(path: string, text: string) => call<T>({ method: 'POST', path, text }),
};

/** Absolute URL of an API path for links and downloads (same origin in the browser). */
export function apiUrl(path: string): string {
  return API_BASE + path;
}
