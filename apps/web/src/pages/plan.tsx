import '../plan/plan.css';
import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, Navigate, useNavigate, useParams, useSearchParams } from 'react-router';
import { api, query } from '../api/client';
import { SEVERITIES, type NamespaceEntry } from '../api/types';
import { typingIn } from '../findings/keys';
import { PlanChange } from '../plan/change';
import { ACTIONS, buildTree, filterUnits, planFiltersFrom, shownFindings, usePlanView, visibleOrder, type PlanUnit } from '../plan/data';
import { PlanTree, SeverityCounts } from '../plan/tree';
import { Field, Page } from '../ui/page';
import { Empty, ErrorBox, Loading, QueryView } from '../ui/states';

/** Terraform's plan summary line: `Plan: 5 to add, 1 to change, 0 to destroy`, plus replace, read and unchanged counts. */
function Summary({ units, namespace }: { units: readonly PlanUnit[]; namespace: string }) {
  const count = (action: string) => units.filter((u) => u.action === action).length;
  const parts = ACTIONS.filter((a) => ['create', 'update', 'destroy'].includes(a.action) || count(a.action) > 0).map((a) => `${count(a.action)} ${a.summary}`);
  const findings = units.flatMap(shownFindings);
  return (
    <p className="plan-summary" data-testid="plan-summary">
      <span>
        <strong>Plan:</strong> {parts.join(', ')}.
      </span>
      {findings.length > 0 ? (
        <>
          <SeverityCounts findings={findings} /> <Link to={`/findings${query({ namespace })}`}>Triage all {findings.length} findings</Link>
        </>
      ) : (
        <span className="muted">No open findings.</span>
      )}
    </p>
  );
}

/** Action and severity filters; each change is a URL change, so a link opens exactly this view. */
function Filters({ params, onChange }: { params: URLSearchParams; onChange: (next: URLSearchParams) => void }) {
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    onChange(next);
  };
  return (
    <form className="filters" aria-label="Filter the plan" onSubmit={(e) => e.preventDefault()}>
      <Field label="Action">
        <select value={params.get('action') ?? ''} onChange={(e) => set('action', e.target.value)}>
          <option value="">any</option>
          {ACTIONS.map((a) => (
            <option key={a.action} value={a.action}>
              {a.label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Severity">
        <select value={params.get('severity') ?? ''} onChange={(e) => set('severity', e.target.value)}>
          <option value="">any</option>
          {SEVERITIES.map((s) => (
            <option key={s} value={s}>
              {s === 'CRITICAL' ? 'CRITICAL' : `${s} or above`}
            </option>
          ))}
        </select>
      </Field>
      {params.has('action') || params.has('severity') ? (
        <button type="button" onClick={() => onChange(new URLSearchParams())}>
          Clear filters
        </button>
      ) : null}
    </form>
  );
}

/** True when Enter belongs to a control (a button, link or field), not to the view. */
function onControl(target: EventTarget | null): boolean {
  return !!(target as HTMLElement | null)?.closest?.('button, a, input, select, textarea');
}

/** The plan of one namespace: summary, filters, the tree by module and the opened change. */
function PlanOf({ namespace }: { namespace: string }) {
  const view = usePlanView(namespace);
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => planFiltersFrom(params), [params]);
  const units = useMemo(() => filterUnits(view.data?.units ?? [], filters), [view.data, filters]);
  const tree = useMemo(() => buildTree(units), [units]);
  const [collapsed, setCollapsed] = useState<Set<string>>(new Set());
  const order = useMemo(() => visibleOrder(tree, collapsed), [tree, collapsed]);
  const [activeHash, setActiveHash] = useState<string | null>(null);
  const [openHash, setOpenHash] = useState<string | null>(null);
  const state = useRef({ order, activeHash });
  state.current = { order, activeHash };

  const open = useCallback((hash: string) => {
    setActiveHash(hash);
    setOpenHash(hash);
  }, []);
  const toggle = useCallback((key: string) => {
    setCollapsed((c) => {
      const n = new Set(c);
      if (n.has(key)) n.delete(key);
      else n.add(key);
      return n;
    });
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      const { order: list, activeHash: at } = state.current;
      const move = (delta: number) => {
        e.preventDefault();
        const i = list.findIndex((u) => u.hash === at);
        const next = list[i < 0 ? (delta > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, i + delta))];
        if (next) setActiveHash(next.hash);
      };
      if (e.key === 'j' || e.key === 'ArrowDown') return move(1);
      if (e.key === 'k' || e.key === 'ArrowUp') return move(-1);
      if (e.key === 'Enter' && at && !onControl(e.target)) {
        e.preventDefault();
        setOpenHash(at);
      } else if (e.key === 'Escape') setOpenHash(null);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (view.isPending) return <Loading what="Loading the plan" />;
  if (view.isError) return <ErrorBox error={view.error} retry={() => void view.refetch()} />;
  const opened = units.find((u) => u.hash === openHash);
  return (
    <>
      <Summary units={view.data.units} namespace={namespace} />
      <Filters params={params} onChange={(next) => setParams(next)} />
      <p className="muted plan-keys" role="status" aria-live="polite">
        {units.length === view.data.units.length ? `${units.length} resources` : `${units.length} of ${view.data.units.length} resources`} · <kbd>j</kbd>/
        <kbd>k</kbd> or <kbd>↓</kbd>/<kbd>↑</kbd> move, <kbd>Enter</kbd> shows the change, <kbd>Esc</kbd> closes it
      </p>
      {units.length === 0 ? (
        <Empty>{view.data.units.length === 0 ? "This namespace's latest ingest has no resources." : 'No resource matches these filters.'}</Empty>
      ) : (
        <div className="workbench plan-workbench">
          <div className="plan-tree-pane">
            <ul className="plan-tree" aria-label="Resource changes by module">
              <PlanTree node={tree} activeHash={activeHash} openHash={openHash} collapsed={collapsed} onToggle={toggle} onOpen={open} />
            </ul>
          </div>
          <aside className="detail-pane" aria-label="Change detail">
            {opened ? (
              <PlanChange unit={opened} namespace={namespace} />
            ) : (
              <p className="muted">Select a resource (click it, or press j then Enter) to see its change with the evidence of its findings highlighted.</p>
            )}
          </aside>
        </div>
      )}
    </>
  );
}

/**
 * `/plan/{namespace}`: the first screen after an analysis (docs/decisions.md "Plan view"). The
 * namespace's resource changes as a tree by module with Terraform's action symbols and finding
 * badges by severity, unchanged units greyed; filters by action and severity in the URL; j/k or
 * the arrows move, Enter opens the rendered change with the evidence lines highlighted.
 * `/plan` opens the newest namespace.
 */
export default function Plan() {
  const { namespace = '' } = useParams();
  const navigate = useNavigate();
  const namespaces = useQuery({ queryKey: ['namespaces'], queryFn: () => api.get<NamespaceEntry[]>('/namespaces') });
  const newest = namespaces.data?.[0]?.namespace;
  if (!namespace && newest) return <Navigate to={`/plan/${encodeURIComponent(newest)}`} replace />;
  return (
    <Page
      title={namespace ? `Plan · ${namespace}` : 'Plan'}
      actions={
        namespaces.data && namespaces.data.length > 0 ? (
          <Field label="Namespace">
            <select value={namespace} onChange={(e) => void navigate(`/plan/${encodeURIComponent(e.target.value)}`)}>
              {namespaces.data.some((n) => n.namespace === namespace) ? null : <option value={namespace}>{namespace}</option>}
              {namespaces.data.map((n) => (
                <option key={n.namespace} value={n.namespace}>
                  {n.namespace}
                </option>
              ))}
            </select>
          </Field>
        ) : null
      }
    >
      {namespace ? (
        <PlanOf key={namespace} namespace={namespace} />
      ) : (
        <QueryView
          query={namespaces}
          isEmpty={(d) => d.length === 0}
          empty="Nothing has been analysed yet: run an analysis from Analyse and its plan shows here."
        >
          {() => <Loading />}
        </QueryView>
      )}
    </Page>
  );
}
