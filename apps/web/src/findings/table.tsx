import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { FindingRow } from '../api/types';
import { SeverityBadge, StatusBadge, when } from '../ui/page';
import { findingId, rowNamespace } from './data';
import { shortenMiddle } from './shorten';

const SEVERITY_RANK: Record<string, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, INFO: 4 };
const ROW_HEIGHT = 36;
/** Beside the open drawer a row holds two lines: title over rule, address over namespace. */
const COMPACT_ROW_HEIGHT = 50;
/** The focusable list's id: the page gives it the focus back after a save or Escape. */
export const LIST_ID = 'findings-list';
/**
 * Column widths: the badges and the date fixed, the text columns sharing the rest in these
 * proportions. While the drawer is open the rule and the namespace move under the title and the
 * address (two-line rows) and the date gives way (the drawer shows it), so at 1400 px a title, a
 * rule id and a shortened address still read whole. Clipped text keeps its full value in a
 * tooltip and in the drawer.
 */
const WIDTH: Record<string, string | undefined> = {
  severity: '6.8rem',
  status: '7.3rem',
  title: '33%',
  rule_id: '20%',
  resource_address: '29%',
  namespace: '18%',
  last_seen: '5.4rem',
};
const COMPACT_WIDTH: Record<string, string | undefined> = { ...WIDTH, title: '52%', resource_address: '48%' };
/** Longest address shown before it is shortened in the middle. */
const ADDRESS_CHARS = 40;

/** A text cell clipped with an ellipsis; the full text stays readable by screen readers and on hover. */
function Clipped({ text, shown = text }: { text: string; shown?: string }) {
  return <span title={text}>{shown}</span>;
}

/** Two clipped lines in one cell (the drawer is open): the main value, and a second one in small muted text. */
function TwoLines({ main, sub }: { main: ReactNode; sub: ReactNode }) {
  return (
    <span className="fw-two">
      {main}
      <span className="fw-sub">{sub}</span>
    </span>
  );
}

/** A row's namespace cell: the one the filter names (else its first), `+N` when its resource sits in more; all of them on hover. */
function NamespaceText({ row, preferred }: { row: FindingRow; preferred: readonly string[] }) {
  const shown = rowNamespace(row, preferred);
  if (!shown) return <span className="muted">no namespace</span>;
  return <Clipped text={row.namespaces.join(', ')} shown={row.namespaces.length > 1 ? `${shown} +${row.namespaces.length - 1}` : shown} />;
}

/** Formatters made once: a new Intl formatter per cell (toLocaleDateString) costs more than the whole row's render while scrolling. */
const SAME_YEAR = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const OTHER_YEAR = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short' });
const THIS_YEAR = new Date().getFullYear();

/** The day of an ISO timestamp (`Nov 23`, with the year when not this year); the full time is in the cell's tooltip. */
function day(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return (d.getFullYear() === THIS_YEAR ? SAME_YEAR : OTHER_YEAR).format(d);
}

export interface TableProps {
  rows: FindingRow[];
  /** The namespaces the filter names: a row in several shows the one picked. */
  namespaces: readonly string[];
  /** True while the drawer is open: the date column gives its room to the text. */
  compact: boolean;
  /** The active finding's id (`resource_hash/rule_id`): an id, not an index, so it stays put while pages arrive or the sort changes. */
  activeId: string | null;
  onActivate: (id: string) => void;
  selected: Set<string>;
  onToggle: (id: string) => void;
  onToggleAll: (ids: string[], on: boolean) => void;
  /** Rows in display (sorted) order, reported on every sort change (keyboard moves follow it). */
  onOrder: (rows: FindingRow[]) => void;
  canWrite: boolean;
}

/**
 * The findings grid: TanStack Table (sortable columns) over a TanStack Virtual window, so only
 * the visible rows are in the DOM and 10,000 findings scroll smoothly. Rows are buttons for the
 * mouse; the keyboard moves with j/k (handled by the page).
 */
export function FindingsTable({ rows, namespaces, compact, activeId, onActivate, selected, onToggle, onToggleAll, onOrder, canWrite }: TableProps) {
  const [sorting, setSorting] = useState<SortingState>([{ id: 'severity', desc: false }]);
  const columns = useMemo<ColumnDef<FindingRow>[]>(
    () => [
      {
        id: 'severity',
        header: 'Severity',
        accessorFn: (f) => SEVERITY_RANK[f.severity] ?? 9,
        cell: (c) => <SeverityBadge severity={c.row.original.severity} />,
      },
      { id: 'status', header: 'Status', accessorKey: 'status', cell: (c) => <StatusBadge status={c.row.original.status} /> },
      {
        id: 'title',
        header: compact ? 'Title · rule' : 'Title',
        accessorKey: 'title',
        cell: (c) => {
          const f = c.row.original;
          return compact ? <TwoLines main={<Clipped text={f.title} />} sub={<Clipped text={f.rule_id} />} /> : <Clipped text={f.title} />;
        },
      },
      { id: 'rule_id', header: 'Rule', accessorKey: 'rule_id', cell: (c) => <Clipped text={c.row.original.rule_id} /> },
      {
        id: 'resource_address',
        header: compact ? 'Resource · namespace' : 'Resource',
        accessorKey: 'resource_address',
        cell: (c) => {
          const f = c.row.original;
          const address = <Clipped text={f.resource_address} shown={shortenMiddle(f.resource_address, ADDRESS_CHARS)} />;
          return compact ? <TwoLines main={address} sub={<NamespaceText row={f} preferred={namespaces} />} /> : address;
        },
      },
      {
        id: 'namespace',
        header: 'Namespace',
        accessorFn: (f) => rowNamespace(f, namespaces) ?? '',
        cell: (c) => <NamespaceText row={c.row.original} preferred={namespaces} />,
      },
      {
        id: 'last_seen',
        header: 'Last seen',
        accessorKey: 'last_seen',
        cell: (c) => (
          <time dateTime={c.row.original.last_seen} title={when(c.row.original.last_seen)}>
            {day(c.row.original.last_seen)}
          </time>
        ),
      },
    ],
    [namespaces, compact],
  );
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting, columnVisibility: { rule_id: !compact, namespace: !compact, last_seen: !compact } },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  const sorted = table.getRowModel().rows;
  useEffect(() => onOrder(sorted.map((r) => r.original)), [sorted, onOrder]);
  const activeIndex = useMemo(() => (activeId === null ? -1 : sorted.findIndex((r) => findingId(r.original) === activeId)), [sorted, activeId]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const rowHeight = compact ? COMPACT_ROW_HEIGHT : ROW_HEIGHT;
  const virtualizer = useVirtualizer({ count: sorted.length, getScrollElement: () => scrollRef.current, estimateSize: () => rowHeight, overscan: 12 });
  // biome-ignore lint/correctness/useExhaustiveDependencies: the rows' height changes with the drawer: measure again
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer]);
  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);

  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const allIds = useMemo(() => sorted.map((r) => findingId(r.original)), [sorted]);
  const allOn = allIds.length > 0 && allIds.length <= selected.size && allIds.every((id) => selected.has(id));

  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the findings grid is focused and driven by the keyboard (j/k)
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: names the keyboard-driven findings grid for screen readers
    <div className="grid-scroll" id={LIST_ID} ref={scrollRef} data-testid="findings-scroll" tabIndex={0} aria-label="Findings list (j/k to move, ? for keys)">
      <table className="grid" aria-label="Findings" aria-rowcount={sorted.length + 1}>
        <thead>
          <tr>
            {canWrite ? (
              <th scope="col" className="sel">
                <input type="checkbox" aria-label="Select all findings shown" checked={allOn} onChange={(e) => onToggleAll(allIds, e.target.checked)} />
              </th>
            ) : null}
            {table.getHeaderGroups()[0].headers.map((h) => {
              const dir = h.column.getIsSorted();
              return (
                <th
                  key={h.id}
                  data-col={h.id}
                  scope="col"
                  style={{ width: (compact ? COMPACT_WIDTH : WIDTH)[h.id] }}
                  aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}
                >
                  <button type="button" className="sort" onClick={h.column.getToggleSortingHandler()}>
                    {flexRender(h.column.columnDef.header, h.getContext())}
                    <span aria-hidden="true">{dir === 'asc' ? ' ▲' : dir === 'desc' ? ' ▼' : ''}</span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {padTop > 0 ? (
            // biome-ignore lint/a11y/noAriaHiddenOnFocusable: virtualisation spacer row, holds nothing focusable
            <tr aria-hidden="true">
              <td style={{ height: padTop, padding: 0, border: 0 }} />
            </tr>
          ) : null}
          {items.map((v) => {
            const row = sorted[v.index];
            const id = findingId(row.original);
            return (
              <tr
                key={id}
                aria-rowindex={v.index + 2}
                aria-current={v.index === activeIndex ? 'true' : undefined}
                className={v.index === activeIndex ? 'active' : undefined}
                data-finding={id}
                onClick={() => onActivate(id)}
                style={{ height: rowHeight }}
              >
                {canWrite ? (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: only keeps the checkbox's click from activating the row; the checkbox handles keys
                  <td className="sel" onClick={(e) => e.stopPropagation()}>
                    <input type="checkbox" aria-label={`Select ${row.original.title}`} checked={selected.has(id)} onChange={() => onToggle(id)} />
                  </td>
                ) : null}
                {row.getVisibleCells().map((c) => (
                  <td key={c.id} data-col={c.column.id}>
                    {flexRender(c.column.columnDef.cell, c.getContext())}
                  </td>
                ))}
              </tr>
            );
          })}
          {padBottom > 0 ? (
            // biome-ignore lint/a11y/noAriaHiddenOnFocusable: virtualisation spacer row, holds nothing focusable
            <tr aria-hidden="true">
              <td style={{ height: padBottom, padding: 0, border: 0 }} />
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}
