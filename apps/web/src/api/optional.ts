import { ApiError, api } from './client';

/**
 * GET of a singleton resource that may not exist yet (an SSO connection, a SCIM config, a
 * code-host integration): the parsed body, or null when the server answers 404. Any other
 * error is thrown (ApiError) for the caller's error state.
 */
export async function getOrNull<T>(path: string): Promise<T | null> {
  try {
    return await api.get<T>(path);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** The `{detail}` of an ApiError with the given status, else null (to explain a 501 or a 422 in place). */
export function detailIf(error: unknown, status: number): string | null {
  return error instanceof ApiError && error.status === status ? error.detail : null;
}

/**
 * The 422 detail of `error` when it names one of `fields` (the server's "field: message" form;
 * the egress policy names `url`), to show on that form field; else null.
 */
export function fieldError(error: unknown, ...fields: string[]): string | null {
  const detail = detailIf(error, 422);
  if (!detail) return null;
  return fields.some((f) => detail.startsWith(`${f}:`) || detail.startsWith(`${f}.`)) ? detail : null;
}
