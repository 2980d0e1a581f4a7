import { flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { Finding } from '../api/types';
import { SeverityBadge, StatusBadge, when } from '../ui/page';
import { findingId } from './data';

const SEVERITY_RANK: Record<string, number> = { CRITICAL: 0, HIGH: 1, MEDIUM: 2, LOW: 3, INFO: 4 };
const ROW_HEIGHT = 36;
/**
 * Column widths: the badges and the date fixed, the text columns sharing the rest, so all six
 * fit a 1400 px window beside the detail pane; below the table's min-width (styles.css) the
 * focusable list scrolls sideways. Clipped text keeps its full value in the DOM and a tooltip.
 */
const WIDTH: Record<string, string | undefined> = { severity: '7.4rem', status: '8rem', title: '23%', rule_id: '19%', last_seen: '6.2rem' };

/** A text cell clipped with an ellipsis; the full text stays readable by screen readers and on hover. */
function Clipped({ text }: { text: string }) {
  return <span title={text}>{text}</span>;
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
  rows: Finding[];
  /** The active finding's id (`resource_hash/rule_id`): an id, not an index, so it stays put while pages arrive or the sort changes. */
  activeId: string | null;
  onActivate: (id: string) => void;
  selected: Set<string>;
  onToggle: (id: string) => void;
  onToggleAll: (ids: string[], on: boolean) => void;
  /** Rows in display (sorted) order, reported on every sort change (keyboard moves follow it). */
  onOrder: (rows: Finding[]) => void;
  canWrite: boolean;
}

/**
 * The findings grid: TanStack Table (sortable columns) over a TanStack Virtual window, so only
 * the visible rows are in the DOM and 10,000 findings scroll smoothly. Rows are buttons for the
 * mouse; the keyboard moves with j/k (handled by the page).
 */
export function FindingsTable({ rows, activeId, onActivate, selected, onToggle, onToggleAll, onOrder, canWrite }: TableProps) {
  const [sorting, setSorting] = useState<SortingState>([{ id: 'severity', desc: false }]);
  const columns = useMemo<ColumnDef<Finding>[]>(
    () => [
      {
        id: 'severity',
        header: 'Severity',
        accessorFn: (f) => SEVERITY_RANK[f.severity] ?? 9,
        cell: (c) => <SeverityBadge severity={c.row.original.severity} />,
      },
      { id: 'status', header: 'Status', accessorKey: 'status', cell: (c) => <StatusBadge status={c.row.original.status} /> },
      { id: 'title', header: 'Title', accessorKey: 'title', cell: (c) => <Clipped text={c.row.original.title} /> },
      { id: 'rule_id', header: 'Rule', accessorKey: 'rule_id', cell: (c) => <Clipped text={c.row.original.rule_id} /> },
      { id: 'resource_address', header: 'Resource', accessorKey: 'resource_address', cell: (c) => <Clipped text={c.row.original.resource_address} /> },
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
    [],
  );
  const table = useReactTable({
    data: rows,
    columns,
    state: { sorting },
    onSortingChange: setSorting,
    getCoreRowModel: getCoreRowModel(),
    getSortedRowModel: getSortedRowModel(),
  });
  const sorted = table.getRowModel().rows;
  useEffect(() => onOrder(sorted.map((r) => r.original)), [sorted, onOrder]);
  const activeIndex = useMemo(() => (activeId === null ? -1 : sorted.findIndex((r) => findingId(r.original) === activeId)), [sorted, activeId]);

  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({ count: sorted.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
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
    <div className="grid-scroll" ref={scrollRef} data-testid="findings-scroll" tabIndex={0} aria-label="Findings list (j/k to move, ? for keys)">
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
                <th key={h.id} scope="col" style={{ width: WIDTH[h.id] }} aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : 'none'}>
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
                style={{ height: ROW_HEIGHT }}
              >
                {canWrite ? (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: only keeps the checkbox's click from activating the row; the checkbox handles keys
                  <td className="sel" onClick={(e) => e.stopPropagation()}>
                    <input type="checkbox" aria-label={`Select ${row.original.title}`} checked={selected.has(id)} onChange={() => onToggle(id)} />
                  </td>
                ) : null}
                {row.getVisibleCells().map((c) => (
                  <td key={c.id}>{flexRender(c.column.columnDef.cell, c.getContext())}</td>
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
