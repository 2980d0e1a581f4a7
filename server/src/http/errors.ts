import type { ErrorRequestHandler } from 'express';
import { ZodError } from 'zod';
import { AppError, TooManyRequestsError } from '@planwarden/engine/core/errors';
import type { Logger } from '@planwarden/engine/core/logger';

/** Body-parser errors carry a `type` and a `status`; we map them without reading messages. */
function bodyParserError(error: unknown): { status: number; detail: string } | null {
  if (!error || typeof error !== 'object' || !('type' in error)) return null;
  const type = (error as { type: unknown }).type;
  if (type === 'entity.too.large') return { status: 413, detail: 'Request body exceeds the size limit' };
  if (type === 'entity.parse.failed') return { status: 422, detail: 'Request body is not valid JSON' };
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return { status: 415, detail: 'Unsupported request encoding' };
  if (type === 'request.aborted') return { status: 400, detail: 'Request aborted' };
  return null;
}

/**
 * The one error middleware (STYLE.md "Errors"): AppError → its status with `{detail, ...extra}`;
 * ZodError → 422; body-parser errors → 413/422; anything else → 500, logged with the request
 * id and never echoed.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    void _next;
    if (res.headersSent) return;
    if (error instanceof AppError) {
      if (error instanceof TooManyRequestsError && error.retryAfterSeconds !== null) res.setHeader('Retry-After', String(error.retryAfterSeconds));
      res.status(error.status).json({ detail: error.message, ...error.extra });
      return;
    }
    if (error instanceof ZodError) {
      const detail = error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      res.status(422).json({ detail });
      return;
    }
    const parsed = bodyParserError(error);
    if (parsed) {
      res.status(parsed.status).json({ detail: parsed.detail });
      return;
    }
    log.error({ err: error, request_id: res.getHeader('X-Request-ID'), path: req.path }, 'unhandled error');
    res.status(500).json({ detail: 'Internal server error' });
  };
}
