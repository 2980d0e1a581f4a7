/**
 * The renderer's side of the bridge: installs an IPC transport in the dashboard's API client
 * (apps/web/src/api/client.ts `setTransport`, the one place that knows how requests travel).
 * Imported before the dashboard's entry so its first request already goes over IPC.
 */
import { requestPath, setTransport, type ApiRequest, type ApiResponse } from '../../../web/src/api/client';
import type { BridgeRequest, BridgeResponse } from '../core/bridge-schema';

declare global {
  interface Window {
    planwarden?: { request(request: BridgeRequest): Promise<BridgeResponse> };
  }
}

/** `fetchTransport`'s headers and body rules, carried over IPC instead of fetch. */
async function ipcTransport(request: ApiRequest): Promise<ApiResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | null = null;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.text !== undefined) {
    headers['content-type'] = 'text/plain; charset=utf-8';
    body = request.text;
  } else if (request.method !== 'GET') {
    headers['content-type'] = 'application/json';
  }
  request.signal?.throwIfAborted();
  const res = await window.planwarden!.request({ method: request.method, path: requestPath(request), headers, body });
  request.signal?.throwIfAborted();
  return {
    status: res.status,
    contentType: res.headers['content-type'] ?? '',
    body: res.body,
    headers: { get: (name) => res.headers[name.toLowerCase()] ?? null },
  };
}

// The dashboard's desktop pages (Sync, Ollama) appear only when this transport is in place.
if (window.planwarden) setTransport(ipcTransport, { desktop: true });
