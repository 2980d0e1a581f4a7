import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { api, query } from '../api/client';
import type { StoredResource } from '../api/types';
import { evidenceLines } from '../findings/detail';
import { SeverityBadge, StatusBadge } from '../ui/page';
import { ErrorBox, Loading } from '../ui/states';
import { ACTIONS, type PlanUnit } from './data';
import { ActionSymbol } from './tree';

/** The model's all-clear (core/payload.ts NO_FINDINGS_RULE_ID): no evidence to mark. */
const NO_FINDINGS = 'NO-FINDINGS';

/** The class of a rendered line by its Terraform marker: added, removed, changed or replaced. */
function markerClass(line: string): string | undefined {
  const t = line.trimStart();
  if (t.startsWith('-/+ ') || t.startsWith('+/- ')) return 'ln-replace';
  if (t.startsWith('+ ')) return 'ln-add';
  if (t.startsWith('- ')) return 'ln-del';
  if (t.startsWith('~ ')) return 'ln-chg';
  return undefined;
}

/**
 * The rendered change as text (never HTML): one row per line with its number, Terraform's
 * markers coloured, and the evidence lines of the unit's findings marked; the first marked line
 * is scrolled into view.
 */
function RenderedChange({ body, evidence }: { body: string; evidence: readonly string[] }) {
  const marks = evidenceLines(body, evidence);
  const ref = useRef<HTMLPreElement>(null);
  useEffect(() => {
    // Scrolls the block only (scrollIntoView would also move the page); `.plan-change` is positioned, so offsetTop is within it.
    const pre = ref.current;
    const first = pre?.querySelector('mark');
    if (pre && first) pre.scrollTop = Math.max(0, first.offsetTop - pre.clientHeight / 3);
  }, []);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: scrollable code block, focusable so the keyboard can scroll it
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: names the scrollable code block for screen readers
    <pre ref={ref} className="plan-change" tabIndex={0} aria-label="Rendered change">
      {body.split('\n').map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text; the line number is their identity
        <span key={i} className={markerClass(line)}>
          <span className="ln" aria-hidden="true">
            {i + 1}
          </span>
          {marks.has(i) ? <mark title="Evidence of a finding">{line || ' '}</mark> : line || ' '}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/**
 * The opened unit: its action, its findings (severity, title, triage status, a link to triage
 * it in the workbench) and the rendered change (GET /resource/{hash}) with the evidence lines of
 * its findings highlighted.
 */
export function PlanChange({ unit, namespace }: { unit: PlanUnit; namespace: string }) {
  const resource = useQuery({
    queryKey: ['resource', unit.hash],
    queryFn: ({ signal }) => api.get<StoredResource>(`/resource/${encodeURIComponent(unit.hash)}`, signal),
  });
  const evidence = (resource.data?.analysis?.findings ?? []).filter((f) => f.rule_id !== NO_FINDINGS).flatMap((f) => f.evidence);
  const action = ACTIONS.find((a) => a.action === unit.action)?.label ?? unit.action;
  return (
    <article className="detail plan-detail" aria-labelledby="plan-detail-title">
      <h2 id="plan-detail-title" className="plan-detail-title">
        <ActionSymbol unit={unit} /> <code>{unit.address}</code>
      </h2>
      <p className="muted">
        {unit.type} · {action} · {unit.analyzer}
        {!unit.analysed ? ' · not analysed yet' : unit.lacks_model_review ? " · the model's review failed: checks only" : ''}
      </p>
      {unit.findings.length === 0 ? (
        <p className="muted">{unit.analysed ? 'No findings on this resource.' : 'Run an analysis to check this resource.'}</p>
      ) : (
        <ul className="plan-findings" aria-label="Findings">
          {unit.findings.map((f) => (
            <li key={f.rule_id}>
              <SeverityBadge severity={f.severity} />
              <span className="plan-finding-title" title={`${f.title} (${f.rule_id})`}>
                {f.title} <code className="plan-rule">{f.rule_id}</code>
              </span>
              {f.status !== 'open' ? <StatusBadge status={f.status} /> : null}
              <Link to={`/findings${query({ namespace, rule_id: f.rule_id })}`} aria-label={`Triage ${f.rule_id}`}>
                Triage
              </Link>
            </li>
          ))}
        </ul>
      )}
      <h3>Change</h3>
      {evidence.length > 0 ? <p className="muted plan-legend">Highlighted: the lines the findings point at.</p> : null}
      {resource.isPending ? (
        <Loading what="Loading the change" />
      ) : resource.isError ? (
        <ErrorBox error={resource.error} retry={() => void resource.refetch()} />
      ) : (
        <RenderedChange key={unit.hash} body={resource.data.value.body} evidence={evidence} />
      )}
    </article>
  );
}
