import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { api, ApiError, query } from '../api/client';
import {
  REASONS,
  STATUSES,
  type CustomRule,
  type Feedback,
  type FindingRecord,
  type FindingRow,
  type FindingStatus,
  type ReasonCode,
  type StoredResource,
  type TriageBody,
} from '../api/types';
import { useSession } from '../auth/session';
import { Markdown } from '../ui/markdown';
import { Field, SeverityBadge, StatusBadge, when } from '../ui/page';
import { ActionResult, ErrorBox, Loading } from '../ui/states';
import { EnumOptions } from './enum-options';

/** Which lines of `body` an evidence string points at (a line containing it, trimmed). */
export function evidenceLines(body: string, evidence: readonly string[]): Set<number> {
  const needles = evidence.map((e) => e.trim()).filter((e) => e.length >= 3);
  const hits = new Set<number>();
  body.split('\n').forEach((line, i) => {
    const t = line.trim();
    if (t && needles.some((n) => t.includes(n) || (n.includes(t) && t.length >= 6))) hits.add(i);
  });
  return hits;
}

/** The unit body as text, one line per row, evidence lines marked (never HTML). */
function UnitBody({ body, evidence }: { body: string; evidence: readonly string[] }) {
  const marks = evidenceLines(body, evidence);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable code block, focusable so the keyboard can scroll it
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: names the scrollable code block for screen readers
    <pre className="unit-body" tabIndex={0} aria-label="Unit body">
      {body.split('\n').map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text; the line number is their identity
        <span key={i} className={marks.has(i) ? 'evidence' : undefined}>
          <span className="ln" aria-hidden="true">
            {i + 1}
          </span>
          {marks.has(i) ? <mark>{line || ' '}</mark> : line || ' '}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** The triage form's preset: the one-key status that opened it (it then asks for the reason first). */
export type FormPreset = 'false_positive' | 'suppressed' | null;

/** `yyyy-mm-dd` (a date input's value) → the instant the suppression lapses: the start of the next local day. */
export function expiryInstant(day: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1).toISOString() : null;
}

/** Today as a date input's value (the earliest day a suppression may run to). */
function today(): string {
  const d = new Date();
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

interface TriageFormProps {
  finding: FindingRow | FindingRecord;
  preset: FormPreset;
  saving: boolean;
  error: unknown;
  onSave: (body: TriageBody) => void;
  /** Escape: leave the form without saving (the page gives the focus back to the list). */
  onLeave: () => void;
}

/**
 * The reason-code form of PATCH /findings: status, reason code, note, and for a suppression an
 * optional last day (`expires_at`: the finding reopens the day after). Opened by `f` or `s`,
 * it takes the focus on the reason; Escape leaves it, Ctrl+Enter saves from any field.
 */
function TriageForm({ finding, preset, saving, error, onSave, onLeave }: TriageFormProps) {
  const [status, setStatus] = useState<FindingStatus>(preset ?? finding.status);
  const [reason, setReason] = useState<ReasonCode | ''>(preset === 'false_positive' ? 'false_positive' : '');
  const [note, setNote] = useState(finding.note ?? '');
  const [until, setUntil] = useState('');
  const reasonRef = useRef<HTMLSelectElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: resets the form when another finding or preset arrives, not on every refetch of the same one
  useEffect(() => {
    setStatus(preset ?? finding.status);
    setReason(preset === 'false_positive' ? 'false_positive' : '');
    setNote(finding.note ?? '');
    setUntil('');
    if (preset) reasonRef.current?.focus();
  }, [finding.resource_hash, finding.rule_id, preset]);
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    const expires = status === 'suppressed' && until ? expiryInstant(until) : null;
    onSave({ status, reason_code: reason || null, note: note || null, ...(expires ? { expires_at: expires } : {}) });
  };
  const onKeyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onLeave();
    } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <form className="triage-form" onSubmit={submit} onKeyDown={onKeyDown} aria-label="Triage this finding">
      <Field label="Status">
        <select value={status} onChange={(e) => setStatus(e.target.value as FindingStatus)}>
          <EnumOptions values={STATUSES} />
        </select>
      </Field>
      <Field label="Reason code">
        <select ref={reasonRef} value={reason} onChange={(e) => setReason(e.target.value as ReasonCode | '')}>
          <option value="">(none)</option>
          <EnumOptions values={REASONS} />
        </select>
      </Field>
      {status === 'suppressed' ? (
        <Field label="Suppressed through (optional)" hint="Reopens the next day; empty: until someone reopens it">
          <input type="date" value={until} min={today()} onChange={(e) => setUntil(e.target.value)} />
        </Field>
      ) : null}
      <Field label="Note">
        <textarea value={note} onChange={(e) => setNote(e.target.value)} rows={2} maxLength={4000} />
      </Field>
      <div className="fw-form-actions">
        <button type="submit" disabled={saving}>
          Save triage
        </button>
        <span className="muted">
          <kbd>Ctrl</kbd>+<kbd>Enter</kbd> saves · <kbd>Esc</kbd> leaves
        </span>
      </div>
      <ActionResult error={error} />
    </form>
  );
}

/** The mask the engine writes in place of a secret's value (analyzers' secret masking). */
export const SENSITIVE_MARK = '(sensitive value)';

/** Says what `(sensitive value)` means where a finding shows it: the input holds the value in plain text; it is masked here. */
function MaskedNote({ texts }: { texts: readonly (string | null | undefined)[] }) {
  if (!texts.some((t) => t?.includes(SENSITIVE_MARK))) return null;
  return (
    <p className="fw-masked" role="note">
      <strong>{SENSITIVE_MARK}</strong> is Planwarden's mask, not the input's value: the input holds this value as a plain-text literal, and it is masked here
      so the secret is not shown again. Move it to a secret store or a sensitive variable.
    </p>
  );
}

/** Props of the drawer's content: the row (or the record fetched for a finding's own URL), and the triage form's wiring. */
export interface FindingDetailProps extends Omit<TriageFormProps, 'finding'> {
  finding: FindingRow | FindingRecord;
  /** GET /findings/{hash}/{rule}: namespaces and the suppression's expiry (undefined while loading). */
  record?: FindingRecord;
  /** The finding's own absolute URL, to copy. */
  link: string;
}

/**
 * The finding detail: header with the full address and namespaces, unit body with evidence
 * highlighted (GET /resource/{hash}), the model's explanation as text, the rule's text
 * (GET /orgs/{org}/rules/{rule_id}, Markdown), the feedback history (GET /feedback) and the
 * reason-code form for writers.
 */
export function FindingDetail({ finding, record, link, ...form }: FindingDetailProps) {
  const session = useSession();
  const resource = useQuery({
    queryKey: ['resource', finding.resource_hash],
    queryFn: () => api.get<StoredResource>(`/resource/${encodeURIComponent(finding.resource_hash)}`),
  });
  const rule = useQuery({
    queryKey: ['rule', session.org_id, finding.rule_id],
    queryFn: () => api.get<CustomRule>(`/orgs/${encodeURIComponent(session.org_id!)}/rules/${encodeURIComponent(finding.rule_id)}`),
    retry: false,
  });
  const history = useQuery({
    queryKey: ['feedback', finding.resource_hash, finding.rule_id],
    queryFn: () => api.get<{ feedback: Feedback[] }>(`/feedback${query({ resource_hash: finding.resource_hash, rule_id: finding.rule_id })}`),
  });
  const [copied, setCopied] = useState(false);
  const llm = resource.data?.analysis?.findings.find((f) => f.rule_id === finding.rule_id);
  const namespaces = record?.namespaces ?? ('namespaces' in finding ? finding.namespaces : []);
  const until = record?.suppressed_until ?? null;
  return (
    <article className="detail" aria-labelledby="detail-title">
      <h2 id="detail-title">{finding.title}</h2>
      <p className="meta">
        <SeverityBadge severity={finding.severity} /> <StatusBadge status={finding.status} />
        {until && finding.status === 'suppressed' ? <span className="muted"> until {when(until)}</span> : null}
      </p>
      <dl className="fw-facts">
        <dt>Rule</dt>
        <dd>
          <code>{finding.rule_id}</code>
        </dd>
        <dt>Resource</dt>
        <dd>
          <code className="fw-full">{finding.resource_address}</code>
        </dd>
        <dt>Namespace{namespaces.length === 1 ? '' : 's'}</dt>
        <dd>{namespaces.length ? namespaces.join(', ') : <span className="muted">none</span>}</dd>
        <dt>Seen</dt>
        <dd>
          first {when(finding.first_seen)} · last {when(finding.last_seen)} · {finding.occurrence_count}×
        </dd>
      </dl>
      <p className="fw-link">
        <a href={link}>Link to this finding</a>{' '}
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(link).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy link'}
        </button>
      </p>
      <MaskedNote texts={[llm?.risk, ...(llm?.evidence ?? [])]} />
      {session.can('member') ? <TriageForm finding={finding} {...form} /> : null}
      {llm ? (
        <dl className="explain">
          <dt>Risk</dt>
          <dd>{llm.risk}</dd>
          <dt>Why it matters</dt>
          <dd>{llm.why_it_matters}</dd>
          <dt>Suggested next step</dt>
          <dd>{llm.suggested_next_step}</dd>
          <dt>Confidence</dt>
          <dd>{llm.confidence}</dd>
        </dl>
      ) : null}
      <h3>Unit body</h3>
      {resource.isPending ? (
        <Loading />
      ) : resource.isError ? (
        <ErrorBox error={resource.error} retry={() => void resource.refetch()} />
      ) : (
        <UnitBody body={resource.data.value.body} evidence={llm?.evidence ?? []} />
      )}
      <h3>Rule</h3>
      {rule.isPending ? (
        <Loading />
      ) : rule.isError ? (
        rule.error instanceof ApiError && rule.error.status === 404 ? (
          <p className="muted">No rule text for {finding.rule_id} in this organization.</p>
        ) : (
          <ErrorBox error={rule.error} />
        )
      ) : (
        <Markdown source={`**${rule.data.title}**\n\n${rule.data.description}`} label="Rule text" />
      )}
      <h3>Triage and feedback history</h3>
      {history.isPending ? (
        <Loading />
      ) : history.isError ? (
        <ErrorBox error={history.error} />
      ) : history.data.feedback.length === 0 ? (
        <p className="muted">No feedback yet.</p>
      ) : (
        <ol className="history">
          {history.data.feedback.map((f) => (
            <li key={f.feedback_id}>
              {when(f.created_at)}: <strong>{f.verdict}</strong>
              {f.reason_code ? ` (${f.reason_code.replace(/_/g, ' ')})` : ''} via {f.source}
              {f.comment ? `: ${f.comment}` : ''}
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}
