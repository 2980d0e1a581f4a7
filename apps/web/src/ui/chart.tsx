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
    // Canvas colours come from the theme's tokens (styles.css), so the chart follows dark mode.
    const css = getComputedStyle(host.current);
    const token = (name: string) => css.getPropertyValue(name).trim();
    const axis = { stroke: token('--muted'), grid: { stroke: token('--line-soft') }, ticks: { stroke: token('--line') } };
    const plot = new uPlot(
      {
        width: Math.min(720, host.current.clientWidth || 720),
        height: 200,
        series: [{}, { label, stroke: token('--accent'), fill: token('--chart-fill'), width: 2 }],
        axes: [axis, { ...axis, size: 40 }],
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
