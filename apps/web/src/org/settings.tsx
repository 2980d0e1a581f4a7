import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, query } from '../api/client';
import type { AuditEvent, OrgInfo } from '../api/types';
import { useSession } from '../auth/session';
import { downloadText } from '../ui/download';
import { Field, when } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';

/** Analyzers on/off (GET/POST /orgs/{org_id}/analyzers). */
export function Analyzers() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/analyzers`;
  const client = useQueryClient();
  const list = useQuery({
    queryKey: ['org-analyzers', session.org_id],
    queryFn: () => api.get<{ analyzers: { name: string; description: string; enabled: boolean }[] }>(base),
  });
  const toggle = useMutation({
    mutationFn: ({ name, enabled }: { name: string; enabled: boolean }) => api.post(`${base}/${encodeURIComponent(name)}`, { enabled }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['org-analyzers'] }),
  });
  return (
    <QueryView query={list} isEmpty={(d) => d.analyzers.length === 0} empty="No analyzers are installed.">
      {(d) => (
        <ul className="plain">
          {d.analyzers.map((a) => (
            <li key={a.name}>
              <label className="check">
                <input type="checkbox" checked={a.enabled} onChange={(e) => toggle.mutate({ name: a.name, enabled: e.target.checked })} />{' '}
                <strong>{a.name}</strong> — {a.description}
              </label>
            </li>
          ))}
          <li>
            <ActionResult error={toggle.error} />
          </li>
        </ul>
      )}
    </QueryView>
  );
}

/** Quota (PATCH …/quota), report-link TTL (PATCH …/report-link-ttl) and the review webhook (PUT/GET …/review-webhook). */
export function OrgSettings() {
  const session = useSession();
  const org = `/orgs/${encodeURIComponent(session.org_id!)}`;
  const client = useQueryClient();
  const info = useQuery({ queryKey: ['org', session.org_id], queryFn: () => api.get<OrgInfo>(org) });
  const done = () => client.invalidateQueries({ queryKey: ['org'] });
  const quota = useMutation({ mutationFn: (v: string) => api.patch(`${org}/quota`, { monthly_budget_usd: v === '' ? null : Number(v) }), onSuccess: done });
  const ttl = useMutation({ mutationFn: (v: string) => api.patch(`${org}/report-link-ttl`, { ttl_hours: Number(v) }), onSuccess: done });
  const webhook = useMutation({ mutationFn: (url: string) => api.put(`${org}/review-webhook`, { url, enabled: true }) });
  const val = (e: FormEvent<HTMLFormElement>, k: string) => String(new FormData(e.currentTarget).get(k) ?? '');
  return (
    <QueryView query={info}>
      {(o) => (
        <>
          <p>
            Plan: <strong>{o.plan_tier}</strong> · created {when(o.created_at)}
          </p>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              quota.mutate(val(e, 'budget'));
            }}
          >
            <Field label="Monthly spend cap (USD, empty = none)">
              <input name="budget" type="number" min={0} step="0.01" defaultValue={o.quota.monthly_budget_usd ?? ''} />
            </Field>
            <button type="submit">Save cap</button>
            <ActionResult error={quota.error} success={quota.isSuccess ? 'Saved.' : null} />
          </form>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              ttl.mutate(val(e, 'ttl'));
            }}
          >
            <Field label="Public report link lifetime (hours)">
              <input name="ttl" type="number" min={1} max={720} defaultValue={o.report_link_ttl_hours ?? 24} />
            </Field>
            <button type="submit">Save lifetime</button>
            <ActionResult error={ttl.error} success={ttl.isSuccess ? 'Saved.' : null} />
          </form>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              webhook.mutate(val(e, 'url'));
            }}
          >
            <Field label="Review webhook URL">
              <input name="url" type="url" required />
            </Field>
            <button type="submit">Save webhook</button>
            <ActionResult error={webhook.error} success={webhook.isSuccess ? 'Saved.' : null} />
          </form>
        </>
      )}
    </QueryView>
  );
}

/** The audit log (GET /metrics/audit) with filters, and its export (…/export?format=csv|json). */
export function Audit() {
  const [filters, setFilters] = useState<{ action?: string; target_type?: string }>({});
  const events = useQuery({
    queryKey: ['audit', filters],
    queryFn: () => api.get<{ events: AuditEvent[]; total_returned: number }>(`/metrics/audit${query({ ...filters, limit: 100 })}`),
  });
  const exporter = useMutation({
    mutationFn: async (format: 'csv' | 'json') => {
      const body = await api.get<unknown>(`/metrics/audit/export${query({ ...filters, format })}`);
      downloadText(typeof body === 'string' ? body : JSON.stringify(body, null, 2), `audit.${format}`, format === 'csv' ? 'text/csv' : 'application/json');
    },
  });
  return (
    <>
      <form
        className="row"
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          setFilters({ action: String(f.get('action') || '') || undefined, target_type: String(f.get('target_type') || '') || undefined });
        }}
      >
        <Field label="Action">
          <input name="action" placeholder="e.g. finding.status_update" />
        </Field>
        <Field label="Target type">
          <input name="target_type" />
        </Field>
        <button type="submit">Filter</button>
        <button type="button" onClick={() => exporter.mutate('csv')}>
          Export CSV
        </button>
        <button type="button" onClick={() => exporter.mutate('json')}>
          Export JSON
        </button>
      </form>
      <ActionResult error={exporter.error} />
      <QueryView query={events} isEmpty={(d) => (d.events ?? []).length === 0} empty="No audit events match.">
        {(d) => (
          <table className="list">
            <caption className="visually-hidden">Audit events</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Actor</th>
              </tr>
            </thead>
            <tbody>
              {d.events.map((ev, i) => (
                <tr key={ev.event_id ?? i}>
                  <td>{when(ev.timestamp)}</td>
                  <td>{ev.action}</td>
                  <td>
                    {ev.target_type} {ev.target_id}
                  </td>
                  <td>{ev.actor_email ?? ev.actor_user_id ?? ev.actor_key_id ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
    </>
  );
}
