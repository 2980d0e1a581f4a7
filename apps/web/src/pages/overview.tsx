import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { api, query } from '../api/client';
import { SEVERITIES, STATUSES, type Finding, type FindingsSummary, type JobListItem, type NamespaceRiskList, type Usage } from '../api/types';
import { useSession } from '../auth/session';
import { useFindings } from '../findings/data';
import { DailyChart } from '../ui/chart';
import { Page, StatusBadge, when } from '../ui/page';
import { QueryView } from '../ui/states';

const DAY = 86_400;
const WINDOW_DAYS = 30;

/** New findings per day over the last 30 days, from the findings' first_seen. */
function perDay(findings: Finding[]): { days: number[]; values: number[] } {
  const today = Math.floor(Date.now() / 1000 / DAY) * DAY;
  const days = Array.from({ length: WINDOW_DAYS }, (_, i) => today - (WINDOW_DAYS - 1 - i) * DAY);
  const values = days.map(() => 0);
  for (const f of findings) {
    const day = Math.floor(Date.parse(f.first_seen) / 1000 / DAY) * DAY;
    const i = (day - days[0]) / DAY;
    if (i >= 0 && i < WINDOW_DAYS) values[i] += 1;
  }
  return { days, values };
}

function Counts({ title, counts, link }: { title: string; counts: Record<string, number>; link: (k: string) => string }) {
  return (
    <section className="card" aria-labelledby={`c-${title}`}>
      <h2 id={`c-${title}`}>{title}</h2>
      <dl className="counts">
        {Object.entries(counts).map(([k, v]) => (
          <div key={k}>
            <dt>
              <Link to={link(k)}>{k.replace(/_/g, ' ')}</Link>
            </dt>
            <dd data-count={k}>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** The namespaces with the most open CRITICAL, then HIGH, findings (GET /findings/namespaces), each a link to its open findings. */
function RiskiestNamespaces() {
  const risk = useQuery({ queryKey: ['namespace-risk'], queryFn: () => api.get<NamespaceRiskList>(`/findings/namespaces${query({ limit: 5 })}`) });
  return (
    <section className="card" aria-labelledby="riskiest">
      <h2 id="riskiest">Riskiest namespaces</h2>
      <QueryView query={risk} isEmpty={(d) => d.namespaces.length === 0} empty="No open critical or high findings.">
        {(d) => (
          <>
            <ol>
              {d.namespaces.map((n) => (
                <li key={n.namespace}>
                  <Link to={`/findings?namespace=${encodeURIComponent(n.namespace)}`}>{n.namespace}</Link> {n.open_critical} critical · {n.open_high} high
                </li>
              ))}
            </ol>
            {d.partial ? <p className="muted">Counted over the newest open critical and high findings only.</p> : null}
          </>
        )}
      </QueryView>
    </section>
  );
}

/** `/overview`: counts by severity and status, new findings over time, riskiest namespaces, top rules, recent jobs, usage against the cap. */
export default function Overview() {
  const session = useSession();
  const summary = useQuery({ queryKey: ['summary'], queryFn: () => api.get<FindingsSummary>(`/findings/summary${query({ days: WINDOW_DAYS })}`) });
  const findings = useFindings({});
  const jobs = useQuery({ queryKey: ['jobs', 'recent'], queryFn: () => api.get<{ jobs: JobListItem[] }>(`/jobs${query({ limit: 5 })}`) });
  const usage = useQuery({ queryKey: ['usage', session.org_id], queryFn: () => api.get<Usage>(`/orgs/${encodeURIComponent(session.org_id!)}/usage`) });
  const series = useMemo(() => perDay(findings.data ?? []), [findings.data]);
  const topRules = useMemo(() => {
    const counts = new Map<string, { title: string; n: number }>();
    for (const f of findings.data ?? []) if (f.status === 'open') counts.set(f.rule_id, { title: f.title, n: (counts.get(f.rule_id)?.n ?? 0) + 1 });
    return [...counts.entries()].sort((a, b) => b[1].n - a[1].n).slice(0, 5);
  }, [findings.data]);
  return (
    <Page title="Overview">
      <QueryView query={summary}>
        {(s) => (
          <div className="cards">
            <Counts
              title="Open by severity"
              counts={Object.fromEntries(SEVERITIES.map((k) => [k, s.by_severity_open[k] ?? 0]))}
              link={(k) => `/findings?status=open&severity=${k}`}
            />
            <Counts title="By status" counts={Object.fromEntries(STATUSES.map((k) => [k, s.by_status[k] ?? 0]))} link={(k) => `/findings?status=${k}`} />
            <section className="card" aria-labelledby="c-period">
              <h2 id="c-period">Last {s.period_days} days</h2>
              <p>
                <strong data-count="total">{s.total}</strong> findings in all · {s.new_in_period} new · {s.resolved_in_period} resolved
              </p>
            </section>
          </div>
        )}
      </QueryView>
      <section aria-labelledby="over-time">
        <h2 id="over-time">New findings per day</h2>
        <QueryView
          query={findings}
          isEmpty={(d) => d.length === 0}
          empty={
            <>
              No findings yet. <Link to="/analyse">Run an analysis</Link>.
            </>
          }
        >
          {() => (
            <DailyChart
              days={series.days}
              values={series.values}
              label="New findings"
              summary={`${series.values.reduce((a, b) => a + b, 0)} new findings over the last ${WINDOW_DAYS} days.`}
            />
          )}
        </QueryView>
      </section>
      <div className="cards">
        <RiskiestNamespaces />
        <section className="card" aria-labelledby="top-rules">
          <h2 id="top-rules">Top rules (open)</h2>
          {topRules.length === 0 ? (
            <p className="muted">No open findings.</p>
          ) : (
            <ol>
              {topRules.map(([rule, { title, n }]) => (
                <li key={rule}>
                  <Link to={`/findings?rule_id=${encodeURIComponent(rule)}&status=open`}>{rule}</Link> {title} ({n})
                </li>
              ))}
            </ol>
          )}
        </section>
        <section className="card" aria-labelledby="recent-jobs">
          <h2 id="recent-jobs">Recent jobs</h2>
          <QueryView query={jobs} isEmpty={(d) => d.jobs.length === 0} empty="No jobs yet.">
            {(d) => (
              <ul className="plain">
                {d.jobs.map((j) => (
                  <li key={j.job_id}>
                    <Link to={`/jobs/${encodeURIComponent(j.job_id)}`}>{j.namespace}</Link> <StatusBadge status={j.status} /> {when(j.created_at)}
                  </li>
                ))}
              </ul>
            )}
          </QueryView>
        </section>
        <section className="card" aria-labelledby="usage">
          <h2 id="usage">Usage this month</h2>
          <QueryView query={usage}>
            {(u) => (
              <>
                <p>
                  {u.period}: <strong>${u.total_cost_usd.toFixed(2)}</strong> spent on {u.resource_count} units
                  {u.budget_usd !== null ? ` of a $${u.budget_usd.toFixed(2)} cap` : ' (no spend cap)'}.
                </p>
                {u.budget_usd ? (
                  <progress max={u.budget_usd} value={Math.min(u.total_cost_usd, u.budget_usd)} aria-label="Spend against the monthly cap" />
                ) : null}
              </>
            )}
          </QueryView>
        </section>
      </div>
    </Page>
  );
}
