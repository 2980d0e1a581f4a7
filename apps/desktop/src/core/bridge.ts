import { inject, type DispatchFunc } from 'light-my-request';
import { BridgeRequestSchema, BridgeResponseSchema, type BridgeResponse, type ParsedBridgeRequest } from './bridge-schema';
import { CookieJar } from './cookie-jar';

/** Only the API is reachable through the bridge (not the MCP transport, not the docs pages). */
export const BRIDGE_PATH_PREFIX = '/api/';

/** Request headers the bridge sets itself; the renderer's values are dropped. */
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'cookie',
  'content-length',
  'transfer-encoding',
  'connection',
  'origin',
  'referer',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-real-ip',
  'forwarded',
]);

export interface BridgeOptions {
  /** Any Node HTTP handler: the Express app of server/src/server.ts `buildServer`. */
  readonly handler: DispatchFunc;
  readonly jar?: CookieJar;
  /** Called after every answered request (e.g. the input journal of the sync). Errors are the caller's. */
  readonly onExchange?: (request: ParsedBridgeRequest, response: BridgeResponse) => void | Promise<void>;
}

/** The bridge: validates `{method, path, headers, body}`, injects it, answers `{status, headers, body}`. */
export type Bridge = (request: unknown) => Promise<BridgeResponse>;

function problem(status: number, detail: string): BridgeResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ detail }) };
}

/** Flattens Node's outgoing headers to `{lower-case name: string}`; Set-Cookie stays in the main process. */
function flatHeaders(headers: Record<string, string | number | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (value === undefined || key === 'set-cookie') continue;
    out[key] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/**
 * Creates the request bridge: the renderer's requests reach the in-process Express
 * app through light-my-request, without a socket, so no other process or web page can call the
 * local API. Input: anything (it is validated with BridgeRequestSchema); an invalid shape
 * answers 400 `{detail}`, a path outside `/api/` 404, an unexpected failure 500 — the promise
 * never rejects. Cookies set by the API are kept in `jar` and sent back on later requests.
 */
export function createBridge(options: BridgeOptions): Bridge {
  const jar = options.jar ?? new CookieJar();
  return async (raw) => {
    const parsed = BridgeRequestSchema.safeParse(raw);
    if (!parsed.success)
      return problem(400, `Invalid bridge request: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
    const request = parsed.data;
    if (!request.path.startsWith(BRIDGE_PATH_PREFIX)) return problem(404, `Not an API path: ${request.path}`);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (!DROPPED_REQUEST_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    }
    let response: BridgeResponse;
    try {
      const res = await inject(options.handler, {
        method: request.method,
        url: request.path,
        headers,
        cookies: jar.current(),
        payload: request.body ?? undefined,
        remoteAddress: '127.0.0.1',
        authority: 'localhost',
      });
      jar.store(res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]);
      response = BridgeResponseSchema.parse({ status: res.statusCode, headers: flatHeaders(res.headers), body: res.payload });
    } catch (error) {
      return problem(500, `The local engine failed to answer: ${error instanceof Error ? error.message : String(error)}`);
    }
    await options.onExchange?.(request, response);
    return response;
  };
}
