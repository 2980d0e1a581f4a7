import type { NextFunction, Request, Response } from 'express';
import { assertJsonDepth } from '@planwarden/engine/core/json-depth';
import type { RouteDef } from './route';

/**
 * Middleware after the body parser of a JSON route: a body nested deeper than MAX_JSON_DEPTH
 * is refused with 422 `{detail: "JSON nested too deeply ..."}` before any handler (or zod)
 * walks it, so a deep body never surfaces as a stack-overflow message or a 500.
 */
export function jsonDepthGuard(def: RouteDef) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (def.body !== 'json') {
      next();
      return;
    }
    try {
      assertJsonDepth(req.body);
      next();
    } catch (error) {
      next(error);
    }
  };
}
