import { z } from 'zod';
import type { Bridge } from './bridge';
import { BridgeRequestSchema, type BridgeResponse } from './bridge-schema';

/** The desktop-only routes, answered in the main process before the API (same single IPC channel). */
export const DESKTOP_PREFIX = '/api/desktop/';

export interface DesktopHandlers {
  /** GET /api/desktop/ollama: discovery result (ollama.ts). */
  ollama(): Promise<unknown>;
  /** GET /api/desktop/sync: settings (URL, whether a key is stored), queue and log. */
  syncStatus(): Promise<unknown>;
  /** PUT /api/desktop/sync/settings `{url, service_key?}`: key stored in the keychain (no key given: the stored one is kept). */
  syncSettings(input: { url: string; service_key?: string }): Promise<unknown>;
  /** POST /api/desktop/sync/push `{namespaces}`. */
  push(namespaces: string[]): Promise<unknown>;
  /** POST /api/desktop/sync/pull. */
  pull(): Promise<unknown>;
  /** POST /api/desktop/sync/flush: runs the queued pushes now ("Retry now"; the main process also does on a timer). */
  flush(): Promise<unknown>;
}

const SettingsSchema = z
  .object({
    url: z
      .string()
      .url()
      .regex(/^https?:\/\//),
    service_key: z.string().trim().min(1).max(512).optional(),
  })
  .strict();
const PushSchema = z.object({ namespaces: z.array(z.string().min(1).max(200)).min(1).max(100) }).strict();

const reply = (status: number, body: unknown): BridgeResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: JSON.stringify(body),
});

/**
 * Wraps the API bridge with the desktop's own routes (Ollama discovery, sync settings, push,
 * pull, log). Errors become `{detail}`: 422 invalid body, 404 unknown route, 409 when the
 * handler refuses (no keychain, no team configured), 503 for anything else.
 */
export function withDesktopRoutes(bridge: Bridge, handlers: DesktopHandlers): Bridge {
  return async (raw) => {
    const parsed = BridgeRequestSchema.safeParse(raw);
    if (!parsed.success || !parsed.data.path.startsWith(DESKTOP_PREFIX)) return bridge(raw);
    const { method, path, body } = parsed.data;
    const route = `${method} ${path.split('?')[0].slice(DESKTOP_PREFIX.length - 1)}`;
    const json = () => {
      try {
        return body === null ? {} : JSON.parse(body);
      } catch {
        return undefined;
      }
    };
    try {
      switch (route) {
        case 'GET /ollama':
          return reply(200, await handlers.ollama());
        case 'GET /sync':
          return reply(200, await handlers.syncStatus());
        case 'PUT /sync/settings': {
          const input = SettingsSchema.safeParse(json());
          return input.success ? reply(200, await handlers.syncSettings(input.data)) : reply(422, { detail: input.error.issues[0]?.message ?? 'invalid body' });
        }
        case 'POST /sync/push': {
          const input = PushSchema.safeParse(json());
          return input.success
            ? reply(200, await handlers.push(input.data.namespaces))
            : reply(422, { detail: input.error.issues[0]?.message ?? 'invalid body' });
        }
        case 'POST /sync/pull':
          return reply(200, await handlers.pull());
        case 'POST /sync/flush':
          return reply(200, await handlers.flush());
        default:
          return reply(404, { detail: `No desktop route ${route}` });
      }
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return reply(/keychain|keyring|No team server/i.test(detail) ? 409 : 503, { detail });
    }
  };
}
