import { useState, type FormEvent } from 'react';
import { REASONS, SEVERITIES, STATUSES, type FindingStatus, type ReasonCode, type TriageBody } from '../api/types';
import { Field } from '../ui/page';
import { ANY_STATUS, DEFAULT_STATUS, FILTER_KEYS } from './data';
import { NamespacePicker } from './namespace-picker';
import { EnumOptions } from './enum-options';

/** `params` with the namespace filter replaced by `namespaces` (the other filters kept). */
function withNamespaces(params: URLSearchParams, namespaces: readonly string[]): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete('namespace');
  for (const ns of namespaces) next.append('namespace', ns);
  return next;
}

/**
 * The filter bar: every filter is a URL parameter, so a link opens exactly that set. The
 * namespace picker applies at once; the other fields on Apply. Status defaults to open (the
 * triage queue); "any status" lists every status.
 */
export function Filters({ params, onChange }: { params: URLSearchParams; onChange: (next: URLSearchParams) => void }) {
  const namespaces = params.getAll('namespace');
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = withNamespaces(new URLSearchParams(), namespaces);
    for (const k of FILTER_KEYS) {
      const v = String(form.get(k) ?? '').trim();
      if (v && !(k === 'status' && v === DEFAULT_STATUS)) next.set(k, v);
    }
    onChange(next);
  };
  const v = (k: string) => params.get(k) ?? '';
  return (
    <div className="fw-filters">
      {/* From the address bar, not `params`: the router commits a navigation as a transition, so two quick ticks would otherwise build on the same old URL. */}
      <NamespacePicker selected={namespaces} onChange={(next) => onChange(withNamespaces(new URLSearchParams(window.location.search), next))} />
      <form className="filters" onSubmit={submit} key={params.toString()} aria-label="Filter findings">
        <Field label="Status">
          <select name="status" defaultValue={params.get('status') ?? DEFAULT_STATUS}>
            <EnumOptions values={STATUSES} />
            <option value={ANY_STATUS}>any status</option>
          </select>
        </Field>
        <Field label="Severity">
          <select name="severity" defaultValue={v('severity')}>
            <option value="">any</option>
            {SEVERITIES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Rule">
          <input name="rule_id" defaultValue={v('rule_id')} size={12} />
        </Field>
        <Field label="Resource type">
          <input name="type" defaultValue={v('type')} size={14} />
        </Field>
        <Field label="Text">
          <input name="q" type="search" defaultValue={v('q')} id="findings-search" />
        </Field>
        <button type="submit">Apply</button>
        <button type="button" onClick={() => onChange(new URLSearchParams())}>
          Clear
        </button>
      </form>
    </div>
  );
}

/** Bulk triage of the selection: one status (and reason) applied to every selected finding. */
export function BulkBar({ count, saving, onApply, onDone }: { count: number; saving: boolean; onApply: (body: TriageBody) => void; onDone: () => void }) {
  const [status, setStatus] = useState<FindingStatus>('acknowledged');
  const [reason, setReason] = useState<ReasonCode | ''>('');
  if (count === 0) return null;
  return (
    <form
      className="bulk"
      aria-label="Bulk triage"
      onSubmit={(e) => {
        e.preventDefault();
        onApply({ status, reason_code: reason || null });
      }}
    >
      <strong>{count} selected</strong>
      <Field label="Set status">
        <select value={status} onChange={(e) => setStatus(e.target.value as FindingStatus)}>
          <EnumOptions values={STATUSES} />
        </select>
      </Field>
      <Field label="Reason">
        <select value={reason} onChange={(e) => setReason(e.target.value as ReasonCode | '')}>
          <option value="">(none)</option>
          <EnumOptions values={REASONS} />
        </select>
      </Field>
      <button type="submit" disabled={saving}>
        Apply to {count}
      </button>
      <button type="button" onClick={onDone}>
        Clear selection
      </button>
    </form>
  );
}
