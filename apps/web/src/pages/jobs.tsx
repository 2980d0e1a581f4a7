import { useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, query } from '../api/client';
import type { JobListItem } from '../api/types';
import { Field, Page, StatusBadge, when } from '../ui/page';
import { jobModelLabel } from '../ui/model-select';
import { QueryView } from '../ui/states';

const JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'];
const PAGE = 50;

/** GET /jobs: newest first, filter by status, paged. */
export default function Jobs() {
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const jobs = useQuery({
    queryKey: ['jobs', status, offset],
    queryFn: () => api.get<{ jobs: JobListItem[]; total: number }>(`/jobs${query({ status, limit: PAGE, offset })}`),
    refetchInterval: 5000,
  });
  const go = (next: Record<string, string>) =>
    setParams(Object.fromEntries(Object.entries({ status, offset: String(offset), ...next }).filter(([, v]) => v && v !== '0')));
  return (
    <Page title="Jobs">
      <Field label="Status">
        <select value={status} onChange={(e) => go({ status: e.target.value, offset: '0' })}>
          <option value="">any</option>
          {JOB_STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </Field>
      <QueryView
        query={jobs}
        isEmpty={(d) => d.jobs.length === 0}
        empty={
          <>
            No jobs yet. <Link to="/analyse">Start an analysis</Link>.
          </>
        }
      >
        {(d) => (
          <>
            <table className="list">
              <caption className="visually-hidden">Analysis jobs</caption>
              <thead>
                <tr>
                  <th scope="col">Job</th>
                  <th scope="col">Namespace</th>
                  <th scope="col">Status</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Model</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {d.jobs.map((j) => (
                  <tr key={j.job_id}>
                    <td>
                      <Link to={`/jobs/${encodeURIComponent(j.job_id)}`}>{j.job_id.slice(0, 12)}</Link>
                      {j.retry_of ? <span className="muted"> (retry)</span> : null}
                    </td>
                    <td>{j.namespace}</td>
                    <td>
                      <StatusBadge status={j.status} />
                    </td>
                    <td>{j.trigger}</td>
                    <td>{jobModelLabel(j)}</td>
                    <td>{when(j.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <nav className="pager" aria-label="Pages">
              <button type="button" disabled={offset === 0} onClick={() => go({ offset: String(Math.max(0, offset - PAGE)) })}>
                Newer
              </button>
              <span>
                {offset + 1}–{offset + d.jobs.length} of {d.total}
              </span>
              <button type="button" disabled={offset + PAGE >= d.total} onClick={() => go({ offset: String(offset + PAGE) })}>
                Older
              </button>
            </nav>
          </>
        )}
      </QueryView>
    </Page>
  );
}
