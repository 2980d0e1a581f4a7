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

/** A non-2xx answer: `status`, the server's `{detail}` (or the raw text) and, for a 429 or 503, its Retry-After in seconds. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: unknown,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(detail);
  }
}

/** What went wrong in a sentence, and what the user can do about it. */
export interface ErrorExplanation {
  readonly message: string;
  readonly fix: string;
}

/** `text` as a sentence: trimmed, with a final full stop. */
function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/**
 * A validation detail in words: the zod issue paths the server names (`ip_allowlist.0: not an IP
 * address`) read as the field's name and entry (`IP allowlist, entry 1: not an IP address`).
 */
function readableDetail(detail: string): string {
  return detail
    .split('; ')
    .map((part) =>
      part.replace(/^([a-z][a-z0-9_]*)((?:\.[a-z0-9_]+)*): /, (_all, field: string, rest: string) => {
        const entry = /^\.(\d+)/.exec(rest);
        const name = field
          .replace(/_/g, ' ')
          .replace(/\bip\b/, 'IP')
          .replace(/\burl\b/, 'URL');
        return `${name[0]!.toUpperCase()}${name.slice(1)}${entry ? `, entry ${Number(entry[1]) + 1}` : ''}: `;
      }),
    )
    .join('; ');
}

/** The fix for a status the user's own request caused (identity-api.md "Errors" and analysis-api.md statuses). */
const FIXES: Record<number, string> = {
  400: 'Check what you entered and try again.',
  401: 'Sign in again (your session may have ended), or check the e-mail and password.',
  402: "Ask an organization owner about the plan's limits, or choose deterministic checks only.",
  403: 'Your role does not allow this here: ask an admin or owner of the organization to do it or to give you the role.',
  404: 'It may have been deleted, or it belongs to another organization: check the link, or switch organization.',
  409: 'Someone or something changed it first: reload the page to see the current state, then try again.',
  413: 'Send a smaller input (split the plan or the file), or ask the operator to raise the size limit.',
  415: 'Reload the page and try again.',
  422: 'Correct the values the message names and try again.',
  423: 'Wait until the current operation finishes, then try again.',
};

/**
 * Explains `error` for a person: the server's detail as a sentence and the fix for its status
 * (400-429 are mistakes the user can correct; 5xx and a lost connection are not theirs). Never
 * "something went wrong" and never a bare HTTP status.
 */
export function explainError(error: unknown): ErrorExplanation {
  if (error instanceof ApiError) {
    const detail = error.detail && !/^HTTP \d+$/.test(error.detail) ? sentence(readableDetail(error.detail)) : null;
    if (error.status === 429) {
      const wait = error.retryAfterSeconds ? `Wait ${error.retryAfterSeconds} seconds` : 'Wait a minute';
      return { message: detail ?? 'Too many requests in a short time.', fix: `${wait}, then try again.` };
    }
    const fix = FIXES[error.status];
    if (fix) return { message: detail ?? 'The server refused this request.', fix };
    if (error.status >= 500) {
      return {
        message: detail ?? 'The server could not complete this request.',
        fix: "Try again in a moment; if it keeps failing, tell the server's operator what you were doing.",
      };
    }
    return { message: detail ?? 'The server refused this request.', fix: 'Check what you entered and try again.' };
  }
  if (error instanceof TypeError) {
    return { message: 'The server could not be reached.', fix: 'Check your network connection and that the server is running, then try again.' };
  }
  return { message: sentence(error instanceof Error ? error.message : String(error)), fix: 'Try again.' };
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
    const retryAfter = Number(res.headers.get('retry-after'));
    throw new ApiError(res.status, detail, body, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null);
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
