/**
 * The preload (sandboxed, context-isolated): exposes exactly one function to the page,
 * `window.planwarden.request({method, path, headers, body})`, validated with zod on the way in
 * and on the way back (the main process validates again). Nothing else of Electron or Node.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_CHANNEL, BridgeRequestSchema, BridgeResponseSchema, type BridgeRequest, type BridgeResponse } from '../core/bridge-schema';

async function request(input: BridgeRequest): Promise<BridgeResponse> {
  const parsed = BridgeRequestSchema.parse(input);
  return BridgeResponseSchema.parse(await ipcRenderer.invoke(BRIDGE_CHANNEL, parsed));
}

contextBridge.exposeInMainWorld('planwarden', Object.freeze({ request }));
