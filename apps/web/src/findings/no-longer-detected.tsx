import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';
import type { Finding } from '../api/types';
import { useSession } from '../auth/session';
import { SeverityBadge, StatusBadge } from '../ui/page';
import { ActionResult } from '../ui/states';
import { findingPath } from './data';

/** Statuses "Resolve all as fixed" moves (the server's choice too: open and needs_review). */
const UNRESOLVED = new Set(['open', 'needs_review']);

/** GET /findings of one namespace in one run-detection state (docs/decisions.md "Runs compared"). */
function useDetection(namespace: string | null, detection: 'no_longer_detected' | 'reappeared') {
  return useQuery({
    queryKey: ['findings', 'detection', namespace ?? '', detection],
    queryFn: () => api.get<{ findings: Finding[] }>(`/findings?${new URLSearchParams({ namespace: namespace ?? '', detection, limit: '1000' }).toString()}`),
    enabled: namespace !== null,
  });
}

function Rows({ namespace, rows, flag }: { namespace: string; rows: readonly Finding[]; flag?: string }) {
  return (
    <ul className="plain">
      {rows.map((f) => (
        <li key={`${f.resource_hash} ${f.rule_id}`}>
          <SeverityBadge severity={f.severity} /> <StatusBadge status={f.status} />
          {flag ? <span className="badge">{flag}</span> : null} <Link to={findingPath(namespace, f)}>{f.title}</Link>{' '}
          <span className="muted mono small" title={f.resource_address}>
            {f.resource_address}
          </span>
        </li>
      ))}
    </ul>
  );
}

/**
 * The findings a namespace's latest run no longer detects (their unit is gone from it: a view,
 * not a status), with "Resolve all as fixed" (POST /findings/resolve-no-longer-detected), and
 * the findings that came back after a run without them, flagged "reappeared". Shown only when
 * the findings list is filtered to exactly one namespace and there is something to say.
 */
export function NoLongerDetected({ namespaces }: { namespaces?: readonly string[] }) {
  const session = useSession();
  const client = useQueryClient();
  const namespace = namespaces?.length === 1 ? namespaces[0] : null;
  const gone = useDetection(namespace, 'no_longer_detected');
  const back = useDetection(namespace, 'reappeared');
  const resolve = useMutation({
    mutationFn: () => api.post<{ resolved: Finding[] }>('/findings/resolve-no-longer-detected', { namespace }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['findings'] });
      void client.invalidateQueries({ queryKey: ['summary'] });
      void client.invalidateQueries({ queryKey: ['finding'] });
    },
  });
  if (namespace === null) return null;
  const open = (gone.data?.findings ?? []).filter((f) => UNRESOLVED.has(f.status));
  const reappeared = back.data?.findings ?? [];
  if (open.length === 0 && reappeared.length === 0 && !resolve.isSuccess) return null;
  return (
    <section className="card" aria-labelledby="runs-compared-title" data-testid="no-longer-detected">
      <h2 id="runs-compared-title">Compared with the previous run of {namespace}</h2>
      {open.length > 0 ? (
        <>
          <p>
            <strong>{open.length}</strong> open finding{open.length === 1 ? ' is' : 's are'} no longer detected: the latest run of this namespace no longer has{' '}
            {open.length === 1 ? 'its unit' : 'their units'} (fixed, renamed or removed).
          </p>
          <Rows namespace={namespace} rows={open} />
          {session.can('member') ? (
            <div className="actions">
              <button type="button" onClick={() => resolve.mutate()} disabled={resolve.isPending}>
                {resolve.isPending ? 'Resolving…' : `Resolve all ${open.length} as fixed`}
              </button>
            </div>
          ) : null}
        </>
      ) : resolve.isSuccess ? (
        <p role="status">
          Resolved {resolve.data.resolved.length} finding{resolve.data.resolved.length === 1 ? '' : 's'} as fixed (suppressed, reason “fixed”).
        </p>
      ) : null}
      <ActionResult error={resolve.error} />
      {reappeared.length > 0 ? (
        <>
          <p>
            <strong>{reappeared.length}</strong> finding{reappeared.length === 1 ? '' : 's'} reappeared: the latest run has{' '}
            {reappeared.length === 1 ? 'its unit' : 'their units'} again after a run without{' '}
            {reappeared.length === 1 ? 'it. Its status is kept' : 'them. Their status is kept'}; check that a fix was not undone.
          </p>
          <Rows namespace={namespace} rows={reappeared} flag="reappeared" />
        </>
      ) : null}
    </section>
  );
}
