import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ApiError, explainError } from '../api/client';

/** A polite loading line (announced by screen readers). */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="state loading" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

/** An error box: what went wrong in the server's words, the fix (explainError) and, when given, a retry button. */
export function ErrorBox({ error, retry }: { error: unknown; retry?: () => void }) {
  const { message, fix } = explainError(error);
  return (
    <div className="state error" role="alert">
      <p>
        <strong>{message}</strong> {fix}
      </p>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** The empty state of a list: a sentence and an optional next step. */
export function Empty({ children }: { children: ReactNode }) {
  return (
    <div className="state empty">
      <p>{children}</p>
    </div>
  );
}

/** An endpoint this server does not offer (404/501): an honest notice, never fake data. */
export function NotAvailable({ what }: { what: string }) {
  return (
    <div className="state unavailable" role="note">
      <p>
        <strong>Not available on this server.</strong> {what} is not provided by this server's API yet; the page appears once it is.
      </p>
    </div>
  );
}

/**
 * Renders a query's loading, error, "not available" (404/501 from the endpoint itself, when
 * `unavailableOn404`) and empty states, else `children(data)`.
 */
export function QueryView<T>({
  query,
  empty,
  isEmpty,
  unavailable,
  children,
}: {
  query: UseQueryResult<T>;
  empty?: ReactNode;
  isEmpty?: (data: T) => boolean;
  unavailable?: string;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <Loading />;
  if (query.isError) {
    if (unavailable && query.error instanceof ApiError && [404, 405, 501].includes(query.error.status)) return <NotAvailable what={unavailable} />;
    return <ErrorBox error={query.error} retry={() => void query.refetch()} />;
  }
  if (isEmpty?.(query.data)) return <Empty>{empty ?? 'Nothing here yet.'}</Empty>;
  return <>{children(query.data)}</>;
}

/** An inline result line for a form action: error (role=alert) or success (role=status). */
export function ActionResult({ error, success }: { error?: unknown; success?: ReactNode }) {
  if (error) return <ErrorBox error={error} />;
  if (success)
    return (
      <p className="state ok" role="status">
        {success}
      </p>
    );
  return null;
}
