import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api } from '../api/client';
import type { Job } from '../api/types';
import { useSession } from '../auth/session';
import { Page, StatusBadge, when } from '../ui/page';
import { jobModelLabel } from '../ui/model-select';
import { ActionResult, QueryView } from '../ui/states';

const TERMINAL = ['done', 'failed', 'cancelled'];

/** Live progress: processed_count / total_count as a native progress bar with a text label. */
function Progress({ job }: { job: Job }) {
  const total = job.total_count ?? 0;
  const done = job.processed_count ?? 0;
  return (
    <div className="progress">
      <progress max={Math.max(total, 1)} value={done} aria-label="Units analysed" />
      <span role="status" aria-live="polite">
        {done} of {total || '?'} units analysed{job.current_resource ? ` · now: ${job.current_resource}` : ''}
      </span>
    </div>
  );
}

/** "+N new · −M no longer detected · K unchanged" against the namespace's previous run (docs/decisions.md "Runs compared"). */
function RunsCompared({ namespace, c }: { namespace: string; c: NonNullable<Job['runs_compared']> }) {
  return (
    <p data-testid="runs-compared">
      Against the previous run of this namespace: <strong>+{c.new}</strong> new · <strong>−{c.no_longer_detected}</strong> no longer detected ·{' '}
      <strong>{c.unchanged}</strong> unchanged.
      {c.no_longer_detected > 0 ? (
        <>
          {' '}
          <Link to={`/findings?namespace=${encodeURIComponent(namespace)}`}>Review what is no longer detected</Link>
        </>
      ) : null}
    </p>
  );
}

/**
 * `/jobs/{id}`: the job polled every second (GET /jobs/{id}) until terminal; cancel while
 * queued or running, retry when failed or cancelled (analysis-api.md "Jobs"); links to the
 * report and findings when done; detections, error and the retry_of chain.
 */
export default function JobDetail() {
  const { jobId = '' } = useParams();
  const session = useSession();
  const navigate = useNavigate();
  const client = useQueryClient();
  const job = useQuery({
    queryKey: ['job', jobId],
    queryFn: () => api.get<Job>(`/jobs/${encodeURIComponent(jobId)}`),
    refetchInterval: (q) => (q.state.data && TERMINAL.includes(q.state.data.status) ? false : 1000),
  });
  const cancel = useMutation({
    mutationFn: () => api.post(`/jobs/${encodeURIComponent(jobId)}/cancel`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['job', jobId] }),
  });
  const retry = useMutation({
    mutationFn: () => api.post<{ job_id: string }>(`/jobs/${encodeURIComponent(jobId)}/retry`),
    onSuccess: (r) => void navigate(`/jobs/${encodeURIComponent(r.job_id)}`),
  });
  return (
    <Page title={`Job ${jobId.slice(0, 12)}`}>
      <QueryView query={job}>
        {(j) => (
          <>
            <p>
              <StatusBadge status={j.status} /> in namespace <strong>{j.namespace}</strong> · {jobModelLabel(j)} · {j.mode} · trigger {j.trigger}
            </p>
            {!TERMINAL.includes(j.status) ? <Progress job={j} /> : null}
            {j.status === 'done' ? (
              <p className="done-links" role="status">
                Finished {when(j.finished_at)} with {j.resource_count ?? j.processed_count} units.{' '}
                <Link to={`/plan/${encodeURIComponent(j.namespace)}`}>Open the plan view</Link> ·{' '}
                <Link to={`/reports?namespace=${encodeURIComponent(j.namespace)}`}>Open the report</Link> ·{' '}
                <Link to={`/findings?namespace=${encodeURIComponent(j.namespace)}`}>Triage the findings</Link>
              </p>
            ) : null}
            {j.runs_compared ? <RunsCompared namespace={j.namespace} c={j.runs_compared} /> : null}
            {j.quota_exceeded ? <p role="alert">The monthly spend cap was reached during this run: the report is partial.</p> : null}
            {j.error ? (
              <div className="state error" role="alert">
                <p>Error: {typeof j.error === 'string' ? j.error : JSON.stringify(j.error)}</p>
              </div>
            ) : null}
            {session.can('member') ? (
              <div className="actions">
                {['queued', 'running'].includes(j.status) && j.mode !== 'sync' ? (
                  <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
                    Cancel job
                  </button>
                ) : null}
                {['failed', 'cancelled'].includes(j.status) ? (
                  <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
                    Retry
                  </button>
                ) : null}
              </div>
            ) : null}
            <ActionResult error={cancel.error ?? retry.error} />
            <dl className="facts">
              <dt>Created</dt>
              <dd>{when(j.created_at)}</dd>
              <dt>Updated</dt>
              <dd>{when(j.updated_at)}</dd>
              <dt>Analyzers used</dt>
              <dd>{j.analyzers_used?.length ? j.analyzers_used.join(', ') : (j.analyzer ?? '—')}</dd>
              <dt>Retry of</dt>
              <dd>{j.retry_of ? <Link to={`/jobs/${encodeURIComponent(j.retry_of)}`}>{j.retry_of.slice(0, 12)}</Link> : '—'}</dd>
            </dl>
            {j.detections?.length ? (
              <>
                <h2>Detections</h2>
                <pre className="mono small">{JSON.stringify(j.detections, null, 2)}</pre>
              </>
            ) : null}
          </>
        )}
      </QueryView>
    </Page>
  );
}
