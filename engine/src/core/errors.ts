/**
 * Application errors. Each carries the HTTP status the spec gives for its condition
 * (identity-api.md "Errors", analysis-api.md "Errors"); the server's error middleware maps
 * them to `{detail}` bodies. Never map errors by matching message text.
 */
export class AppError extends Error {
  readonly status: number;
  /** Extra fields merged into the error body (e.g. `job_id` on the sync analyze path). */
  readonly extra: Record<string, unknown>;
  constructor(status: number, detail: string, extra: Record<string, unknown> = {}) {
    super(detail);
    this.name = new.target.name;
    this.status = status;
    this.extra = extra;
  }
}

export class BadRequestError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(400, detail, extra);
  }
}
export class UnauthorizedError extends AppError {
  constructor(detail = 'Not authenticated', extra?: Record<string, unknown>) {
    super(401, detail, extra);
  }
}
export class PaymentRequiredError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(402, detail, extra);
  }
}
export class ForbiddenError extends AppError {
  constructor(detail = 'Forbidden', extra?: Record<string, unknown>) {
    super(403, detail, extra);
  }
}
export class NotFoundError extends AppError {
  constructor(detail = 'Not found', extra?: Record<string, unknown>) {
    super(404, detail, extra);
  }
}
export class ConflictError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(409, detail, extra);
  }
}

/**
 * Runs `insert` (a write that a unique index may refuse); resolves true when it wrote, false when
 * it threw ConflictError (the record exists already). Any other error propagates.
 */
export async function insertedUnlessConflict(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (error) {
    if (error instanceof ConflictError) return false;
    throw error;
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(413, detail, extra);
  }
}
/** 415: a JSON endpoint given a body of another media type. */
export class UnsupportedMediaTypeError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(415, detail, extra);
  }
}
/**
 * 429: a bounded resource is full. `retryAfterSeconds` is sent as the Retry-After header
 * (RFC 9110 section 10.2.3) by the server's error middleware.
 */
export class TooManyRequestsError extends AppError {
  constructor(
    detail: string,
    readonly retryAfterSeconds: number | null = null,
    extra?: Record<string, unknown>,
  ) {
    super(429, detail, extra);
  }
}
export class ValidationError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(422, detail, extra);
  }
}
export class LockedError extends AppError {
  constructor(detail = 'Organization is locked', extra?: Record<string, unknown>) {
    super(423, detail, extra);
  }
}
export class NotImplementedError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(501, detail, extra);
  }
}
export class UpstreamError extends AppError {
  constructor(detail: string, extra?: Record<string, unknown>) {
    super(502, detail, extra);
  }
}
