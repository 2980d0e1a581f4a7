import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, query } from '../api/client';
import { REASONS, STATUSES, type CustomRule, type Feedback, type Finding, type FindingStatus, type ReasonCode, type StoredResource } from '../api/types';
import { useSession } from '../auth/session';
import { Markdown } from '../ui/markdown';
import { Field, SeverityBadge, StatusBadge, when } from '../ui/page';
import { ActionResult, ErrorBox, Loading } from '../ui/states';
import { useTriage } from './data';

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

/** The reason-code form of PATCH /findings: status, reason code, note. `focusStatus` preselects a status. */
function TriageForm({ finding, preset }: { finding: Finding; preset: FindingStatus | null }) {
  const triage = useTriage();
  const [status, setStatus] = useState<FindingStatus>(preset ?? finding.status);
  const [reason, setReason] = useState<ReasonCode | ''>(preset === 'false_positive' ? 'false_positive' : '');
  const [note, setNote] = useState(finding.note ?? '');
  const first = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    setStatus(preset ?? finding.status);
    setReason(preset === 'false_positive' ? 'false_positive' : '');
    setNote(finding.note ?? '');
    if (preset) first.current?.focus();
  }, [finding, preset]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    triage.mutate({ targets: [finding], body: { status, reason_code: reason || null, note: note || null } });
  };
  return (
    <form className="triage-form" onSubmit={submit} aria-label="Triage this finding">
      <Field label="Status">
        <select ref={first} value={status} onChange={(e) => setStatus(e.target.value as FindingStatus)}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Reason code">
        <select value={reason} onChange={(e) => setReason(e.target.value as ReasonCode | '')}>
          <option value="">(none)</option>
          {REASONS.map((r) => (
            <option key={r} value={r}>
              {r.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Note">
        <textarea value={note} onChange={(e) => setNote(e.target.value)} rows={2} maxLength={4000} />
      </Field>
      <button type="submit" disabled={triage.isPending}>
        Save triage
      </button>
      <ActionResult error={triage.error} success={triage.isSuccess ? 'Saved.' : null} />
    </form>
  );
}

/**
 * The finding detail: header, unit body with evidence highlighted (GET /resource/{hash}), the
 * model's explanation as text, the rule's text (GET /orgs/{org}/rules/{rule_id}, Markdown), the
 * feedback history (GET /feedback) and the reason-code form for writers.
 */
export function FindingDetail({ finding, preset }: { finding: Finding; preset: FindingStatus | null }) {
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
  const llm = resource.data?.analysis?.findings.find((f) => f.rule_id === finding.rule_id);
  return (
    <article className="detail" aria-labelledby="detail-title">
      <h2 id="detail-title">{finding.title}</h2>
      <p className="meta">
        <SeverityBadge severity={finding.severity} /> <StatusBadge status={finding.status} /> <code>{finding.rule_id}</code> on{' '}
        <code>{finding.resource_address}</code>
      </p>
      <p className="muted">
        First seen {when(finding.first_seen)} · last seen {when(finding.last_seen)} · seen {finding.occurrence_count}×
      </p>
      {session.can('member') ? <TriageForm finding={finding} preset={preset} /> : null}
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
