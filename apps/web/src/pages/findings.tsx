import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { ApiError } from '../api/client';
import type { FindingRow, TriageBody } from '../api/types';
import { useSession } from '../auth/session';
import { filtersFrom, findingId, findingPath, localFilter, rowNamespace, useFindingRecord, useFindings, useTriage, type TriageTarget } from '../findings/data';
import { FindingDetail, type FormPreset } from '../findings/detail';
import { DrawerLayout } from '../findings/drawer';
import { BulkBar, Filters } from '../findings/filters';
import { FORM_KEYS, KeyHelp, STATUS_KEYS, typingIn } from '../findings/keys';
import { FindingsTable, LIST_ID } from '../findings/table';
import { NoLongerDetected } from '../findings/no-longer-detected';
import { UndoToast, type UndoOffer } from '../findings/undo-toast';
import { Page, when } from '../ui/page';
import { ActionResult, Empty, ErrorBox, Loading } from '../ui/states';

/** Gives the keyboard focus back to the findings list (after a save, Escape, or closing the drawer). */
function focusList() {
  document.getElementById(LIST_ID)?.focus({ preventScroll: true });
}

/** The toast's sentence for a triage of `targets` to `body`. */
function describe(targets: TriageTarget[], body: TriageBody): string {
  const what = targets.length === 1 ? `“${targets[0].title ?? targets[0].rule_id}”` : `${targets.length} findings`;
  const until = body.expires_at ? ` through ${when(new Date(Date.parse(body.expires_at) - 1).toISOString())}` : '';
  return `${what} marked ${body.status.replace(/_/g, ' ')}${until}.`;
}

/**
 * `/findings` and `/findings/:namespace/:resource_hash/:rule_id`: the triage workbench. Filters
 * in the URL (status open by default), a sortable virtualised table, bulk triage, keyboard
 * triage (j/k, one-key statuses that move on to the next finding, `f`/`s` forms, Undo, `?`), and
 * the open finding in a resizable drawer; the finding's own path opens it cold.
 */
export default function Findings() {
  const session = useSession();
  const canWrite = session.can('member');
  const [params, setParams] = useSearchParams();
  const path = useParams();
  const navigate = useNavigate();
  const filters = useMemo(() => filtersFrom(params), [params]);
  const findings = useFindings(filters);
  // The first page is shown at once; later pages stream in (findings/data.ts useFindings).
  const streaming = findings.isSuccess && findings.fetchStatus === 'fetching';
  const rows = useMemo(() => localFilter(findings.data ?? [], filters), [findings.data, filters]);
  const [order, setOrder] = useState<FindingRow[]>([]);
  const onOrder = useCallback((o: FindingRow[]) => setOrder(o), []);
  const activeKey = useMemo(
    () => (path.resource_hash && path.rule_id ? { resource_hash: path.resource_hash, rule_id: path.rule_id } : null),
    [path.resource_hash, path.rule_id],
  );
  const activeId = activeKey ? findingId(activeKey) : null;
  const record = useFindingRecord(activeKey);
  const row = useMemo(() => (activeId === null ? undefined : rows.find((r) => findingId(r) === activeId)), [rows, activeId]);
  const shown = row ?? record.data;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [help, setHelp] = useState(false);
  // The form's preset belongs to one finding: a key pressed before the router shows the next finding opens the form on that one.
  const [presetFor, setPresetFor] = useState<{ id: string; preset: FormPreset } | null>(null);
  const preset = presetFor && presetFor.id === activeId ? presetFor.preset : null;
  const setPreset = useCallback((p: FormPreset, id: string | null = null) => setPresetFor(p && id ? { id, preset: p } : null), []);
  // The finding the keys act on, set as soon as one opens: the router commits navigations as transitions, so the URL may lag a fast typist.
  const activeRef = useRef(activeId);
  // The findings (null: closed) of the navigations the page asked for that the URL has not shown yet.
  // A commit of an older one must not move activeRef back: after j j or two quick saves the router
  // can commit the first URL after the second was asked for, and the next key would act on it again.
  const requestedRef = useRef<(string | null)[]>([]);
  useEffect(() => {
    const requested = requestedRef.current;
    const at = requested.lastIndexOf(activeId);
    if (at >= 0 && at < requested.length - 1) {
      requestedRef.current = requested.slice(at + 1); // an older navigation: a newer one follows
      return;
    }
    requestedRef.current = [];
    activeRef.current = activeId; // caught up, or moved by the browser (back, forward, a link)
  }, [activeId]);
  const [offer, setOffer] = useState<UndoOffer | null>(null);
  const closeToast = useCallback(() => setOffer(null), []);
  const triage = useTriage();
  const undoTriage = useTriage();

  /** Opens `target` in the drawer at its own URL (the filters ride along); j/k replace the history entry. */
  const open = useCallback(
    (target: FindingRow, replace: boolean) => {
      setPreset(null);
      activeRef.current = findingId(target);
      requestedRef.current.push(activeRef.current);
      navigate({ pathname: findingPath(rowNamespace(target, filters.namespaces), target), search: params.toString() }, { replace });
    },
    [navigate, filters.namespaces, params, setPreset],
  );
  const close = useCallback(() => {
    setPreset(null);
    activeRef.current = null;
    requestedRef.current.push(null);
    navigate({ pathname: '/findings', search: params.toString() });
    focusList();
  }, [navigate, params, setPreset]);

  /** Saves `body` on `targets` with an Undo offer; `advance`: the next finding opens and the list has the focus. */
  const save = useCallback(
    (targets: TriageTarget[], body: TriageBody, advance: boolean) => {
      const before = targets.map((t) => ({ ...t }));
      // mutateAsync, not mutate's callbacks: those fire only for the latest of several saves in flight.
      triage.mutateAsync({ targets, body }).then(
        () =>
          setOffer({
            key: Date.now(),
            text: describe(targets, body),
            undo: () => {
              for (const b of before) if (b.status) undoTriage.mutate({ targets: [b], body: { status: b.status, note: b.note ?? null } });
              const first = order.find((r) => findingId(r) === findingId(before[0]));
              if (first && before.length === 1) open(first, true);
            },
          }),
        () => {}, // shown by the form or the page (triage.error)
      );
      setPreset(null);
      if (advance) {
        const at = order.findIndex((r) => findingId(r) === findingId(targets[0]));
        const next = at >= 0 ? order[at + 1] : undefined;
        if (next) open(next, true);
        focusList();
      }
    },
    [triage, undoTriage, order, open, setPreset],
  );

  const stateRef = useRef({ order, activeId, shown, offer, preset, save, open, close });
  stateRef.current = { order, activeId, shown, offer, preset, save, open, close };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the selection belongs to one set of filters
  useEffect(() => setSelected(new Set()), [params]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      const s = stateRef.current;
      const id = activeRef.current;
      const at = id === null ? -1 : s.order.findIndex((r) => findingId(r) === id);
      const cur = at >= 0 ? s.order[at] : s.shown && findingId(s.shown) === id ? s.shown : undefined;
      const move = (delta: number) => {
        e.preventDefault();
        const next = s.order[Math.max(0, Math.min(s.order.length - 1, at + delta))];
        if (next) s.open(next, true);
      };
      if (e.key === '?') {
        e.preventDefault();
        setHelp(true);
      } else if (e.key === '/') {
        e.preventDefault();
        document.getElementById('findings-search')?.focus();
      } else if (e.key === 'Escape') {
        if (s.preset) setPreset(null);
        else if (id) s.close();
        focusList();
      } else if (e.key === 'j' || e.key === 'ArrowDown') move(1);
      else if (e.key === 'k' || e.key === 'ArrowUp') move(-1);
      else if (e.key === 'u' && s.offer) {
        e.preventDefault();
        s.offer.undo();
        setOffer(null);
      } else if (canWrite && cur) {
        if (e.key === 'x') {
          e.preventDefault();
          setSelected((sel) => {
            const n = new Set(sel);
            if (n.has(findingId(cur))) n.delete(findingId(cur));
            else n.add(findingId(cur));
            return n;
          });
          return;
        }
        const status = STATUS_KEYS[e.key];
        if (!status) return;
        e.preventDefault();
        if (FORM_KEYS.has(status)) setPreset(status as FormPreset, findingId(cur));
        else s.save([cur], { status }, true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [canWrite, setPreset]);

  const selectedRows = useMemo(() => rows.filter((r) => selected.has(findingId(r))), [rows, selected]);
  const link = shown ? new URL(findingPath(rowNamespace(shown as FindingRow, filters.namespaces), shown), window.location.origin).href : '';
  const drawer = activeKey ? (
    <>
      <div className="fw-drawer-head">
        {shown && !row && findings.isSuccess && !streaming ? <p className="muted">Not in the list: its status or the filters leave it out.</p> : null}
        <button type="button" onClick={close} aria-label="Close the finding (Esc)">
          Close
        </button>
      </div>
      {shown ? (
        <FindingDetail
          finding={shown}
          record={record.data}
          link={link}
          preset={preset}
          saving={triage.isPending}
          error={triage.error}
          onSave={(body) => save([shown], body, true)}
          onLeave={() => {
            setPreset(null);
            focusList();
          }}
        />
      ) : record.isPending ? (
        <Loading what="Loading the finding" />
      ) : record.error instanceof ApiError && record.error.status === 404 ? (
        <Empty>
          This organization has no such finding (it may belong to another organization). <Link to="/findings">Back to the findings</Link>
        </Empty>
      ) : (
        <ErrorBox error={record.error} retry={() => void record.refetch()} />
      )}
    </>
  ) : null;

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
      <NoLongerDetected namespaces={filters.namespaces} />
      <p className="muted" role="status" aria-live="polite">
        {findings.isSuccess
          ? `${rows.length.toLocaleString()} ${filters.status ? `${filters.status.replace(/_/g, ' ')} ` : ''}finding${rows.length === 1 ? '' : 's'}${findings.data.length !== rows.length ? ` of ${findings.data.length.toLocaleString()}` : ''}`
          : ''}
        {streaming ? ' so far · loading more…' : ''}
        {triage.isPending ? ' · saving…' : ''}
      </p>
      {activeKey ? null : <ActionResult error={triage.error} />}
      {canWrite ? (
        <BulkBar
          count={selectedRows.length}
          saving={triage.isPending}
          onApply={(body) => {
            save(selectedRows, body, false);
            setSelected(new Set());
          }}
          onDone={() => setSelected(new Set())}
        />
      ) : null}
      <DrawerLayout
        label="Finding detail"
        drawer={drawer}
        list={
          findings.isPending || (streaming && rows.length === 0) ? (
            <Loading what="Loading findings" />
          ) : findings.isError ? (
            findings.error instanceof ApiError && findings.error.status === 403 ? (
              <Empty>Your role ({session.role}) may not read findings in this organization; ask an admin for the member role.</Empty>
            ) : (
              <ErrorBox error={findings.error} retry={() => void findings.refetch()} />
            )
          ) : rows.length === 0 ? (
            <Empty>
              No {filters.status ? `${filters.status.replace(/_/g, ' ')} ` : ''}findings match these filters. Choose “any status” or clear the filters, or run
              an analysis from Analyse.
            </Empty>
          ) : (
            <FindingsTable
              rows={rows}
              namespaces={filters.namespaces ?? []}
              compact={activeKey !== null}
              activeId={activeId}
              onActivate={(id) => {
                const r = rows.find((x) => findingId(x) === id);
                if (r) open(r, false);
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
          )
        }
      />
      <UndoToast offer={offer} onClose={closeToast} />
      <KeyHelp open={help} onOpenChange={setHelp} />
    </Page>
  );
}
