import type { RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { analyzeRoutes } from './analyze';
import { analyzerRoutes } from './analyzers';
import { healthRoutes } from './health';
import { ingestRoutes } from './ingest';
import { modelRoutes } from './models';
import { reportRoutes } from './reports';

/**
 * Every API route, in mount order: fixed paths first, then the `/{namespace}/...` and
 * `/{analyzer}/...` patterns (whose first segment is a parameter).
 */
export function allRoutes(services: ServerServices): RouteDef[] {
  return [
    ...healthRoutes(),
    ...modelRoutes(),
    ...analyzeRoutes(services),
    ...ingestRoutes(),
    ...reportRoutes(),
    ...analyzerRoutes(),
  ];
}
