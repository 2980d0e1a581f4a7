import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { ApiError } from '../api/client';
import { REASONS, SEVERITIES, STATUSES, type Finding, type FindingStatus, type ReasonCode } from '../api/types';
import { useSession } from '../auth/session';
import { FILTER_KEYS, filtersFrom, findingId, localFilter, useFindings, useTriage } from '../findings/data';
import { FindingDetail } from '../findings/detail';
import { KeyHelp, STATUS_KEYS, typingIn } from '../findings/keys';
import { FindingsTable } from '../findings/table';
import { Field, Page } from '../ui/page';
import { ActionResult, Empty, ErrorBox, Loading } from '../ui/states';

/** The filter bar: every filter is a URL parameter, so a link opens exactly that set. */
function Filters({ params, onChange }: { params: URLSearchParams; onChange: (next: URLSearchParams) => void }) {
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next = new URLSearchParams();
    for (const k of FILTER_KEYS) {
      const v = String(form.get(k) ?? '').trim();
      if (v) next.set(k, v);
    }
    onChange(next);
  };
  const v = (k: string) => params.get(k) ?? '';
  return (
    <form className="filters" onSubmit={submit} key={params.toString()} aria-label="Filter findings">
      <Field label="Namespace">
        <input name="namespace" defaultValue={v('namespace')} />
      </Field>
      <Field label="Status">
        <select name="status" defaultValue={v('status')}>
          <option value="">any</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace(/_/g, ' ')}
            </option>
          ))}
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
  );
}

/** Bulk triage of the selection: one status (and reason) applied to every selected finding. */
function BulkBar({ targets, onDone }: { targets: Finding[]; onDone: () => void }) {
  const triage = useTriage();
  const [status, setStatus] = useState<FindingStatus>('acknowledged');
  const [reason, setReason] = useState<ReasonCode | ''>('');
  if (targets.length === 0) return null;
  return (
    <form
      className="bulk"
      aria-label="Bulk triage"
      onSubmit={(e) => {
        e.preventDefault();
        triage.mutate({ targets, body: { status, reason_code: reason || null } }, { onSuccess: onDone });
      }}
    >
      <strong>{targets.length} selected</strong>
      <Field label="Set status">
        <select value={status} onChange={(e) => setStatus(e.target.value as FindingStatus)}>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Reason">
        <select value={reason} onChange={(e) => setReason(e.target.value as ReasonCode | '')}>
          <option value="">(none)</option>
          {REASONS.map((r) => (
            <option key={r} value={r}>
              {r.replace(/_/g, ' ')}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={triage.isPending}>
        Apply to {targets.length}
      </button>
      <button type="button" onClick={onDone}>
        Clear selection
      </button>
      <ActionResult error={triage.error} />
    </form>
  );
}

/**
 * `/findings`: the triage workbench. Filters in the URL, a sortable virtualised
 * table, bulk triage, keyboard triage (j/k, one-key statuses, `?`), and the finding detail.
 */
export default function Findings() {
  const session = useSession();
  const canWrite = session.can('member');
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFrom(params), [params]);
  const findings = useFindings(filters);
  // The first page is shown at once; later pages stream in (findings/data.ts useFindings).
  const streaming = findings.isSuccess && findings.fetchStatus === 'fetching';
  const rows = useMemo(() => localFilter(findings.data ?? [], filters), [findings.data, filters]);
  const [order, setOrder] = useState<Finding[]>([]);
  const onOrder = useCallback((o: Finding[]) => setOrder(o), []);
  const [activeId, setActiveId] = useState<string | null>(null);
  const active = useMemo(() => (activeId === null ? -1 : order.findIndex((r) => findingId(r) === activeId)), [order, activeId]);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [help, setHelp] = useState(false);
  const [preset, setPreset] = useState<FindingStatus | null>(null);
  const triage = useTriage();
  const current = active >= 0 ? order[active] : undefined;
  const stateRef = useRef({ order, active, current });
  stateRef.current = { order, active, current };

  // biome-ignore lint/correctness/useExhaustiveDependencies: resets the active row and the selection whenever the URL filters change
  useEffect(() => {
    setActiveId(null);
    setSelected(new Set());
  }, [params]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      const { order: list, active: at, current: cur } = stateRef.current;
      const move = (delta: number) => {
        e.preventDefault();
        setPreset(null);
        const next = list[Math.max(0, Math.min(list.length - 1, at + delta))];
        if (next) setActiveId(findingId(next));
      };
      if (e.key === '?') {
        e.preventDefault();
        setHelp(true);
        return;
      }
      if (e.key === '/') {
        e.preventDefault();
        document.getElementById('findings-search')?.focus();
        return;
      }
      if (e.key === 'j' || e.key === 'ArrowDown') return move(1);
      if (e.key === 'k' || e.key === 'ArrowUp') return move(-1);
      if (!cur || !canWrite) return;
      if (e.key === 'x') {
        e.preventDefault();
        setSelected((s) => {
          const n = new Set(s);
          const id = findingId(cur);
          if (n.has(id)) n.delete(id);
          else n.add(id);
          return n;
        });
        return;
      }
      const status = STATUS_KEYS[e.key];
      if (!status) return;
      e.preventDefault();
      if (status === 'false_positive')
        setPreset('false_positive'); // needs a reason: the form takes focus
      else triage.mutate({ targets: [cur], body: { status } });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [canWrite, triage]);

  const selectedRows = useMemo(() => rows.filter((r) => selected.has(findingId(r))), [rows, selected]);
  return (
    <Page
      title="Findings"
      actions={
        <button type="button" onClick={() => setHelp(true)} aria-keyshortcuts="?">
          Keyboard shortcuts (?)
        </button>
      }
    >
      <Filters params={params} onChange={(next) => setParams(next)} />
      <p className="muted" role="status" aria-live="polite">
        {findings.isSuccess
          ? `${rows.length.toLocaleString()} finding${rows.length === 1 ? '' : 's'}${findings.data.length !== rows.length ? ` of ${findings.data.length.toLocaleString()}` : ''}`
          : ''}
        {streaming ? ' so far · loading more…' : ''}
        {triage.isPending ? ' · saving…' : ''}
      </p>
      <ActionResult error={triage.error} />
      {canWrite ? <BulkBar targets={selectedRows} onDone={() => setSelected(new Set())} /> : null}
      {findings.isPending || (streaming && rows.length === 0) ? (
        <Loading what="Loading findings" />
      ) : findings.isError ? (
        findings.error instanceof ApiError && findings.error.status === 403 ? (
          <Empty>Your role ({session.role}) may not read findings in this organization; ask an admin for the member role.</Empty>
        ) : (
          <ErrorBox error={findings.error} retry={() => void findings.refetch()} />
        )
      ) : rows.length === 0 ? (
        <Empty>No findings match these filters. Run an analysis from Analyse, or clear the filters.</Empty>
      ) : (
        <div className="workbench">
          <FindingsTable
            rows={rows}
            activeId={activeId}
            onActivate={(id) => {
              setPreset(null);
              setActiveId(id);
            }}
            selected={selected}
            canWrite={canWrite}
            onToggle={(id) =>
              setSelected((s) => {
                const n = new Set(s);
                if (n.has(id)) n.delete(id);
                else n.add(id);
                return n;
              })
            }
            onToggleAll={(ids, on) => setSelected(on ? new Set(ids) : new Set())}
            onOrder={onOrder}
          />
          <aside className="detail-pane" aria-label="Finding detail">
            {current ? (
              <FindingDetail finding={rows.find((r) => findingId(r) === findingId(current)) ?? current} preset={preset} />
            ) : (
              <p className="muted">Select a finding (click, or press j) to see its unit body, rule and history.</p>
            )}
          </aside>
        </div>
      )}
      <KeyHelp open={help} onOpenChange={setHelp} />
    </Page>
  );
}
