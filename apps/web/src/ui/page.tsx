import { cloneElement, isValidElement, useEffect, useId, type ReactNode } from 'react';

/** A page's heading and document title; `actions` sit beside the heading. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Planwarden`;
  }, [title]);
  return (
    <section className="page" aria-labelledby="page-title">
      <header className="page-head">
        <h1 id="page-title" tabIndex={-1}>
          {title}
        </h1>
        {actions ? <div className="actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/**
 * A labelled control: the label points at the (single) child control by id, and the hint (and
 * the `error`, when given: a field-level server refusal such as a 422 naming this field) is its
 * description, so the control's accessible name is exactly `label`.
 */
export function Field({ label, children, hint, error }: { label: string; children: ReactNode; hint?: string; error?: string | null }) {
  const id = useId();
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  const control = isValidElement<{ id?: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }>(children)
    ? cloneElement(children, { id: children.props.id ?? id, 'aria-describedby': described, ...(error ? { 'aria-invalid': true } : {}) })
    : children;
  const target = isValidElement<{ id?: string }>(children) ? (children.props.id ?? id) : undefined;
  return (
    <div className="field">
      <label className="label" htmlFor={target}>
        {label}
      </label>
      {control}
      {hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      {error ? (
        <span className="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** A severity badge (text, never colour alone). */
export function SeverityBadge({ severity }: { severity: string }) {
  return <span className={`badge sev-${severity.toLowerCase()}`}>{severity}</span>;
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge st-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

/** Made once (a formatter per call is slow in long lists such as the findings table). */
const WHEN = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A short local date-time of an ISO instant ('—' for null). */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : WHEN.format(d);
}
