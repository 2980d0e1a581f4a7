import express from 'express';
import type { McpEndpoint, McpEndpointOptions } from './endpoint';

/**
 * Where the MCP endpoint is mounted: endpoint.ts's MCP_PATH, repeated here so that mounting it
 * loads none of the MCP code (lazy-endpoint.test.ts checks that the two agree).
 */
export const MCP_MOUNT_PATH = '/mcp';

/**
 * The MCP endpoint (endpoint.ts createMcpEndpoint) loaded on its first request: the MCP SDK,
 * its JSON Schema validator and its HTTP adapter, which loads Node's fetch implementation,
 * cost start-up time and memory at rest that a server nobody asks over MCP never needs
 * (docs/decisions.md "Compiled npm start"). Answers exactly as the endpoint does, with the same
 * options; a failure to load goes to the error middleware (500) and is retried on the next
 * request. `close()` closes the endpoint when it was loaded.
 */
export function lazyMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  let loading: Promise<McpEndpoint> | null = null;
  const load = (): Promise<McpEndpoint> => {
    loading ??= import('./endpoint')
      .then(({ createMcpEndpoint }) => createMcpEndpoint(options))
      .catch((error: unknown) => {
        loading = null;
        throw error;
      });
    return loading;
  };
  const router = express.Router();
  router.use((req, res, next) => {
    load()
      .then((endpoint) => endpoint.router(req, res, next), next)
      .catch(next);
  });
  return {
    router,
    async close() {
      if (loading) await (await loading.catch(() => null))?.close();
    },
  };
}
