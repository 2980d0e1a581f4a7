import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Several middleware functions as one (per-request cost). Runs `handlers` in order,
 * each getting a `next` that starts the following one; the last one's `next()` is the caller's
 * `next`, and `next(error)` anywhere skips the rest and hands the error to the caller's `next`.
 * Same semantics as listing them in one Express `use`/route call, without a router layer (and
 * its path matching) per function. Handlers must not call `next('route')` / `next('router')`.
 */
export function chain(handlers: readonly RequestHandler[]): RequestHandler {
  const steps = handlers.slice();
  if (steps.length === 1) return steps[0];
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next: NextFunction = (error?: unknown) => {
      if (error !== undefined && error !== null) {
        done(error);
        return;
      }
      const step = steps[index];
      index += 1;
      if (!step) {
        done();
        return;
      }
      try {
        const pending = step(req, res, next) as unknown;
        if (pending instanceof Promise) pending.catch(done);
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
