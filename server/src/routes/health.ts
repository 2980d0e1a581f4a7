import { route, type RouteDef } from '../http/route';
import { NO_QUERY } from './shared';

/** identity-api.md "Liveness": GET /health (no auth). */
export function healthRoutes(): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/health',
      policy: 'public',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: { status: 'healthy', timestamp: ctx.now().toISOString() } }),
    }),
  ];
}
