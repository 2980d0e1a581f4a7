/**
 * The desktop app's own routes (apps/desktop/src/core/desktop-routes.ts), called through the
 * dashboard's one API client so they travel over the same transport (IPC in the desktop).
 * Shapes are derived type-only from the desktop core, never re-typed by hand.
 */
import { call, DESKTOP_API_BASE } from '../api/client';
import type { FlushResult, SyncStatus } from '../../../desktop/src/core/desktop-app';
import type { OllamaDiscovery } from '../../../desktop/src/core/ollama';
import type { PullCounts } from '../../../desktop/src/core/sync/pull';
import type { PushResult } from '../../../desktop/src/core/sync/sync-service';
import type { SyncLogEntry } from '../../../desktop/src/core/sync/sync-state';

export type { FlushResult, OllamaDiscovery, PullCounts, PushResult, SyncLogEntry, SyncStatus };

export const desktopApi = {
  /** GET /api/desktop/ollama: where Ollama was looked for and what it has (found models join the Analyse page's list). */
  ollama: () => call<OllamaDiscovery>({ method: 'GET', base: DESKTOP_API_BASE, path: '/ollama' }),
  /** GET /api/desktop/sync: the team server URL, whether a key is stored, the queue and the log (newest first). */
  syncStatus: () => call<SyncStatus>({ method: 'GET', base: DESKTOP_API_BASE, path: '/sync' }),
  /** PUT /api/desktop/sync/settings: without `service_key` the stored key is kept. 409 when the keychain cannot store it. */
  saveSettings: (body: { url: string; service_key?: string }) =>
    call<SyncStatus>({ method: 'PUT', base: DESKTOP_API_BASE, path: '/sync/settings', json: body }),
  /** POST /api/desktop/sync/push: `{status: 'done'|'queued'}`. */
  push: (namespaces: string[]) => call<PushResult>({ method: 'POST', base: DESKTOP_API_BASE, path: '/sync/push', json: { namespaces } }),
  /** POST /api/desktop/sync/pull: rules and triage statuses brought down. */
  pull: () => call<PullCounts>({ method: 'POST', base: DESKTOP_API_BASE, path: '/sync/pull', json: {} }),
  /** POST /api/desktop/sync/flush: runs the queued pushes now; `{ran, queued}`. */
  flush: () => call<FlushResult>({ method: 'POST', base: DESKTOP_API_BASE, path: '/sync/flush', json: {} }),
};
