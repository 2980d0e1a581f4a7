import type { Bridge } from '../bridge';

/** One answer of the public API: status and parsed body (JSON, else the text). */
export interface ApiAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON of any endpoint (or text); callers cast it to the shape they asked for
  readonly body: any;
}

export type ApiBody = { readonly json: unknown } | { readonly text: string };

/**
 * The public API (analysis-api.md, identity-api.md) as the sync sees it, on either side: the
 * local engine through the bridge, the team server over HTTPS. `path` is under `/api/v1`.
 */
export interface ApiClient {
  call(method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: ApiBody): Promise<ApiAnswer>;
}

/** The team server cannot be reached (network error, timeout, or a gateway's 502/503/504): the push is queued. */
export class TeamUnreachableError extends Error {
  override name = 'TeamUnreachableError';
}

/** The team server refused a sync step (any other status ≥ 400): logged, not retried. */
export class SyncRefusedError extends Error {
  override name = 'SyncRefusedError';
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly step: string,
  ) {
    super(`${step}: HTTP ${status} ${detail}`);
  }
}

function encode(body: ApiBody | undefined): { headers: Record<string, string>; payload: string | null } {
  if (body === undefined) return { headers: { accept: 'application/json' }, payload: null };
  if ('json' in body) return { headers: { accept: 'application/json', 'content-type': 'application/json' }, payload: JSON.stringify(body.json) };
  return { headers: { accept: 'application/json', 'content-type': 'text/plain; charset=utf-8' }, payload: body.text };
}

function decode(contentType: string, text: string): unknown {
  if (!contentType.includes('json') || text === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The local engine, through the same bridge as the renderer (no credential: auth is off). */
export function localApi(bridge: Bridge): ApiClient {
  return {
    async call(method, path, body) {
      const { headers, payload } = encode(body);
      const res = await bridge({ method, path: `/api/v1${path}`, headers, body: payload });
      return { status: res.status, body: decode(res.headers['content-type'] ?? '', res.body) };
    },
  };
}

/**
 * The team org's server: `${baseUrl}/api/v1${path}` with the service key in `X-API-Key`
 * (identity-api.md "Authentication"). Throws TeamUnreachableError when the server cannot be
 * reached or a gateway says it is down; every other answer is returned as it is.
 */
export function teamApi(baseUrl: string, serviceKey: string, options: { timeoutMs?: number; fetch?: typeof fetch } = {}): ApiClient {
  const root = baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  return {
    async call(method, path, body) {
      const { headers, payload } = encode(body);
      let res: Response;
      try {
        res = await doFetch(`${root}/api/v1${path}`, {
          method,
          headers: { ...headers, 'x-api-key': serviceKey },
          body: payload ?? undefined,
          signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
          redirect: 'error',
        });
      } catch (error) {
        throw new TeamUnreachableError(`The team server at ${root} cannot be reached: ${error instanceof Error ? error.message : String(error)}`);
      }
      if ([502, 503, 504].includes(res.status)) throw new TeamUnreachableError(`The team server at ${root} is unavailable (HTTP ${res.status})`);
      return { status: res.status, body: decode(res.headers.get('content-type') ?? '', await res.text()) };
    },
  };
}

/** `answer` if its status is one of `ok`, else SyncRefusedError naming `step`. */
export function expectStatus(answer: ApiAnswer, ok: readonly number[], step: string): ApiAnswer {
  if (ok.includes(answer.status)) return answer;
  const detail = answer.body && typeof answer.body === 'object' && 'detail' in answer.body ? String(answer.body.detail) : String(answer.body).slice(0, 200);
  throw new SyncRefusedError(answer.status, detail, step);
}

/** Every item of a paged list (`limit`/`offset`, at most `pageSize` per page) under `key`. */
export async function listAll<T>(api: ApiClient, path: string, key: string, pageSize = 1000): Promise<T[]> {
  const out: T[] = [];
  const sep = path.includes('?') ? '&' : '?';
  for (let offset = 0; ; offset += pageSize) {
    const page = expectStatus(await api.call('GET', `${path}${sep}limit=${pageSize}&offset=${offset}`), [200], `GET ${path}`).body[key] as T[];
    out.push(...page);
    if (page.length < pageSize) return out;
  }
}
