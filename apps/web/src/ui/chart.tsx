import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * A small uPlot line chart of `values` per day (`days` as Unix seconds). The canvas is
 * decorative for screen readers; `summary` says the same in text.
 */
export function DailyChart({ days, values, label, summary }: { days: number[]; values: number[]; label: string; summary: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const plot = new uPlot(
      {
        width: Math.min(720, host.current.clientWidth || 720),
        height: 200,
        series: [{}, { label, stroke: '#2563eb', fill: 'rgba(37,99,235,0.12)', width: 2 }],
        axes: [{}, { size: 40 }],
        legend: { show: false },
        cursor: { show: false },
      },
      [days, values],
      host.current,
    );
    return () => plot.destroy();
  }, [days, values, label]);
  return (
    <figure className="chart">
      <div ref={host} aria-hidden="true" />
      <figcaption>{summary}</figcaption>
    </figure>
  );
}
