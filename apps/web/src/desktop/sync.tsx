import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { api } from '../api/client';
import type { NamespaceEntry } from '../api/types';
import { desktopApi, type FlushResult, type PullCounts, type PushResult, type SyncLogEntry, type SyncStatus } from './api';
import { Field, StatusBadge, when } from '../ui/page';
import { ActionResult, Empty, QueryView } from '../ui/states';

const SYNC_KEY = ['desktop', 'sync'] as const;

/** `1 rule`, `2 rules`: a count with its noun in the right number. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One sentence per pushed namespace (a queued push is told by QueuedNotice). */
function describePush(result: PushResult): string | null {
  if (result.status === 'queued') return null;
  return result.namespaces
    .map(
      (n) =>
        `${n.namespace}: ${count(n.analyses_submitted, 'analysis', 'analyses')} sent, ${n.analyses_skipped} already on the team server, ${count(n.triage.patched, 'triage decision')} applied.`,
    )
    .join(' ');
}

function describeFlush(r: FlushResult): string {
  if (r.queued.length === 0) return r.ran === 0 ? 'Nothing was waiting.' : `Done: ${count(r.ran, 'queued push', 'queued pushes')} sent to the team server.`;
  return `The team server still cannot be reached; ${count(r.queued.length, 'push', 'pushes')} ${r.queued.length === 1 ? 'waits' : 'wait'} (it retries by itself every minute).`;
}

function describePull(c: PullCounts): string {
  return `Pulled ${count(c.rules_created, 'new custom rule')} and ${count(c.rules_updated, 'updated rule')}; ${count(c.triage.patched, 'triage status', 'triage statuses')} applied (${count(c.triage.conflicts, 'conflict')}, the later decision kept).`;
}

/** The team server's URL and the service key (sealed in the system keychain by the main process). */
function TeamSettings({ status }: { status: SyncStatus }) {
  const client = useQueryClient();
  const [url, setUrl] = useState(status.team_url ?? '');
  const [key, setKey] = useState('');
  const save = useMutation({
    mutationFn: () => desktopApi.saveSettings({ url: url.trim(), ...(key ? { service_key: key } : {}) }),
    onSuccess: (next) => {
      setKey('');
      client.setQueryData(SYNC_KEY, next);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form onSubmit={submit} aria-labelledby="team-heading">
      <h2 id="team-heading">Team server</h2>
      {status.keychain_unavailable ? (
        <div className="state unavailable" role="note">
          <p>The service key cannot be stored on this computer: {status.keychain_unavailable}. Set up your system keychain and restart the app to sync.</p>
        </div>
      ) : null}
      <div className="row">
        <Field label="Team server URL" hint="e.g. https://planwarden.example.com">
          <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://" size={40} />
        </Field>
        <Field
          label="Service key"
          hint={
            status.has_service_key
              ? 'Stored in the system keychain. Leave empty to keep it.'
              : 'From Organization › Service keys on the team server; kept in the system keychain.'
          }
        >
          <input type="password" value={key} onChange={(e) => setKey(e.target.value)} autoComplete="off" required={!status.has_service_key} size={32} />
        </Field>
        <button type="submit" disabled={save.isPending}>
          Save
        </button>
      </div>
      <ActionResult error={save.error} success={save.isSuccess ? 'Saved. The service key is in the system keychain.' : null} />
    </form>
  );
}

/** Choose local namespaces, push them; pull the team's rules and triage. */
function PushPull({ status }: { status: SyncStatus }) {
  const client = useQueryClient();
  const namespaces = useQuery({ queryKey: ['namespaces'], queryFn: () => api.get<NamespaceEntry[]>('/namespaces') });
  const [chosen, setChosen] = useState<string[]>([]);
  const after = { onSettled: () => void client.invalidateQueries({ queryKey: SYNC_KEY }) };
  const push = useMutation({ mutationFn: () => desktopApi.push(chosen), ...after });
  const pull = useMutation({ mutationFn: desktopApi.pull, ...after });
  // A flush that ran the queue makes the earlier "queued" answer of Push stale.
  const flush = useMutation({ mutationFn: desktopApi.flush, onSuccess: () => push.reset(), ...after });
  const configured = status.team_url !== null && status.has_service_key;
  const toggle = (ns: string, on: boolean) => setChosen((list) => (on ? [...list, ns] : list.filter((n) => n !== ns)));
  return (
    <section aria-labelledby="push-heading">
      <h2 id="push-heading">Push and pull</h2>
      {configured ? null : <p className="muted">Save a team server URL and a service key above to push or pull.</p>}
      <QueryView
        query={namespaces}
        isEmpty={(d) => d.length === 0}
        empty={
          <>
            Nothing to push yet: <Link to="/analyse">analyse a plan</Link> first.
          </>
        }
      >
        {(list) => (
          <fieldset className="namespaces">
            <legend>Namespaces to push</legend>
            {list.map((n) => (
              <label key={n.namespace} className="check">
                <input type="checkbox" checked={chosen.includes(n.namespace)} onChange={(e) => toggle(n.namespace, e.target.checked)} />
                {n.namespace}
              </label>
            ))}
          </fieldset>
        )}
      </QueryView>
      <div className="actions">
        <button type="button" className="primary" onClick={() => push.mutate()} disabled={!configured || chosen.length === 0 || push.isPending}>
          {push.isPending ? 'Pushing…' : `Push${chosen.length ? ` ${chosen.length === 1 ? '1 namespace' : `${chosen.length} namespaces`}` : ''}`}
        </button>
        <button type="button" onClick={() => pull.mutate()} disabled={!configured || pull.isPending}>
          {pull.isPending ? 'Pulling…' : 'Pull rules and triage'}
        </button>
      </div>
      <ActionResult error={push.error} success={push.data ? describePush(push.data) : null} />
      {push.data?.status === 'queued' ? (
        <div className="state unavailable" role="status">
          <p>
            <strong>The team server cannot be reached, so the push is queued.</strong> It runs by itself once the server answers. ({push.data.reason})
          </p>
        </div>
      ) : null}
      <ActionResult error={pull.error} success={pull.data ? describePull(pull.data) : null} />
      {status.queued.length > 0 ? (
        <div className="actions">
          <p role="status">Waiting to push when the team server answers: {status.queued.map((q) => q.join(', ')).join('; ')}.</p>
          <button type="button" onClick={() => flush.mutate()} disabled={flush.isPending}>
            {flush.isPending ? 'Retrying…' : 'Retry now'}
          </button>
        </div>
      ) : null}
      <ActionResult error={flush.error} success={flush.data ? describeFlush(flush.data) : null} />
    </section>
  );
}

/** The sync log, newest first: what went where. */
function SyncLog({ log }: { log: readonly SyncLogEntry[] }) {
  return (
    <section aria-labelledby="log-heading">
      <h2 id="log-heading">Sync log</h2>
      {log.length === 0 ? (
        <Empty>Nothing synced yet.</Empty>
      ) : (
        <table className="list sync-log">
          <caption className="visually-hidden">Sync log, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Direction</th>
              <th scope="col">Namespace</th>
              <th scope="col">What</th>
              <th scope="col">Outcome</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {log.map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: log entries have no id and can share a timestamp; the rows hold no state
              <tr key={`${e.at}-${i}`}>
                <td>{when(e.at)}</td>
                <td>{e.direction}</td>
                <td>{e.namespace ?? '—'}</td>
                <td>{e.what}</td>
                <td>
                  <StatusBadge status={e.outcome} />
                </td>
                <td>{e.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * The Sync panel of the desktop settings (docs/decisions.md "Desktop sync"): team server URL and
 * service key (PUT /api/desktop/sync/settings), namespaces to push, Push / Pull, the queue and
 * the sync log (GET /api/desktop/sync, refreshed while something is queued).
 */
export function SyncPanel() {
  const status = useQuery({ queryKey: SYNC_KEY, queryFn: desktopApi.syncStatus, refetchInterval: (q) => (q.state.data?.queued.length ? 10_000 : false) });
  return (
    <QueryView query={status}>
      {(s) => (
        <>
          <TeamSettings status={s} />
          <PushPull status={s} />
          <SyncLog log={s.log} />
        </>
      )}
    </QueryView>
  );
}
