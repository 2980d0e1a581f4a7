import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { fieldError } from '../api/optional';
import type { Channel, ChannelTestResult, CreateChannelBody, NotificationEvent, UpdateChannelBody } from '../api/types';
import { useSession } from '../auth/session';
import { ConfirmButton } from '../ui/confirm';
import { Field, when } from '../ui/page';
import { ActionResult, ErrorBox, Loading, QueryView } from '../ui/states';

const URL_FIELDS = ['target_url', 'url'] as const;

/** The event checkboxes of the catalogue (GET /notifications/events). */
function EventChoices({ events, chosen }: { events: NotificationEvent[]; chosen: (e: NotificationEvent) => boolean }) {
  if (events.length === 0) return <p className="muted">This server emits no notification events.</p>;
  return (
    <fieldset>
      <legend>Events</legend>
      {events.map((e) => (
        <label key={e.name} className="check block">
          <input type="checkbox" name="events" value={e.name} defaultChecked={chosen(e)} /> <code>{e.name}</code> — {e.description}
        </label>
      ))}
    </fieldset>
  );
}

/**
 * The create / edit form of a channel: target URL and secret are write-only (empty keeps the
 * stored ones on edit), the egress policy's 422 is shown on the URL field.
 */
function ChannelForm({
  events,
  current,
  onSubmit,
  pending,
  error,
  onCancel,
}: {
  events: NotificationEvent[];
  current: Channel | null;
  onSubmit: (body: CreateChannelBody | UpdateChannelBody) => void;
  pending: boolean;
  error: unknown;
  onCancel?: () => void;
}) {
  const [kind, setKind] = useState<Channel['kind']>(current?.kind ?? 'webhook');
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const url = String(f.get('target_url') ?? '').trim();
    const secret = String(f.get('secret') ?? '');
    const common = { label: String(f.get('label')).trim(), events: f.getAll('events').map(String), enabled: f.get('enabled') === 'on' };
    if (current)
      onSubmit({
        ...common,
        ...(url ? { target_url: url } : {}),
        ...(secret ? { secret } : {}),
        ...(f.get('clear_secret') === 'on' ? { clear_secret: true } : {}),
      });
    else onSubmit({ ...common, kind, target_url: url, secret: kind === 'webhook' && secret ? secret : null });
  };
  const name = current ? `Edit ${current.label}` : 'New channel';
  return (
    <form onSubmit={submit} aria-label={name} className="panel">
      <div className="form-grid">
        <Field label="Label">
          <input name="label" required maxLength={80} defaultValue={current?.label ?? ''} />
        </Field>
        {current ? null : (
          <Field label="Kind">
            <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as Channel['kind'])}>
              <option value="webhook">webhook (signed JSON)</option>
              <option value="chat">chat (Slack-compatible)</option>
            </select>
          </Field>
        )}
        <Field
          label="Target URL"
          hint={current ? `Now ${current.target_url_hint}; leave empty to keep it.` : 'Write-only: shown afterwards only in part.'}
          error={fieldError(error, ...URL_FIELDS)}
        >
          <input name="target_url" type="url" required={!current} autoComplete="off" />
        </Field>
        {kind === 'webhook' ? (
          <Field
            label="Signing secret (optional)"
            hint={current?.has_secret ? 'A secret is stored. Type a new one to replace it.' : 'Deliveries are signed with HMAC-SHA256 (X-Service-Signature).'}
            error={fieldError(error, 'secret')}
          >
            <input name="secret" type="password" autoComplete="off" />
          </Field>
        ) : null}
        {current?.has_secret ? (
          <label className="check">
            <input type="checkbox" name="clear_secret" /> Remove the stored secret
          </label>
        ) : null}
      </div>
      <EventChoices events={events} chosen={(e) => (current ? current.events.includes(e.name) : e.default_on)} />
      <label className="check block">
        <input type="checkbox" name="enabled" defaultChecked={current?.enabled ?? true} /> Enabled
      </label>
      <div className="actions">
        <button type="submit" disabled={pending}>
          {current ? 'Save channel' : 'Add channel'}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      <ActionResult error={fieldError(error, ...URL_FIELDS, 'secret') ? null : error} />
    </form>
  );
}

/** The last delivery's outcome in words. */
function Delivery({ outcome }: { outcome: Channel['last_delivery'] }) {
  if (!outcome) return <span className="muted">never delivered</span>;
  return (
    <span>
      {outcome.ok ? 'delivered' : 'failed'}
      {outcome.status_code ? ` (HTTP ${outcome.status_code})` : ''}
      {outcome.error ? `: ${outcome.error}` : ''}, {when(outcome.at)}
    </span>
  );
}

/**
 * Organization → Notifications: channels (…/notifications/channels, analysis-api.md
 * "Notification channels") with the event catalogue, a test delivery, edit and delete.
 */
export function Notifications() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/notifications/channels`;
  const client = useQueryClient();
  const events = useQuery({ queryKey: ['notification-events'], queryFn: () => api.get<NotificationEvent[]>('/notifications/events') });
  const channels = useQuery({ queryKey: ['channels', session.org_id], queryFn: () => api.get<Channel[]>(base) });
  const refresh = () => client.invalidateQueries({ queryKey: ['channels'] });
  const [editing, setEditing] = useState<string | null>(null);
  const [tested, setTested] = useState<{ id: string; result: ChannelTestResult } | null>(null);
  const create = useMutation({ mutationFn: (body: CreateChannelBody) => api.post<Channel>(base, body), onSuccess: refresh });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: string; body: UpdateChannelBody }) => api.patch<Channel>(`${base}/${encodeURIComponent(id)}`, body),
    onSuccess: () => {
      setEditing(null);
      void refresh();
    },
  });
  const remove = useMutation({ mutationFn: (id: string) => api.delete(`${base}/${encodeURIComponent(id)}`), onSuccess: refresh });
  const test = useMutation({
    mutationFn: async (id: string) => ({ id, result: await api.post<ChannelTestResult>(`${base}/${encodeURIComponent(id)}/test`) }),
    onSuccess: (r) => {
      setTested(r);
      void refresh();
    },
  });
  if (events.isPending) return <Loading what="Loading the event catalogue" />;
  if (events.isError) return <ErrorBox error={events.error} retry={() => void events.refetch()} />;
  return (
    <>
      <h2>Channels</h2>
      <QueryView
        query={channels}
        isEmpty={(d) => d.length === 0}
        empty="No notification channel: nothing is sent when a pull request is blocked or a finding needs review."
      >
        {(list) => (
          <ul className="plain channels">
            {list.map((c) => (
              <li key={c.channel_id}>
                {editing === c.channel_id ? (
                  <ChannelForm
                    events={events.data}
                    current={c}
                    pending={update.isPending}
                    error={update.error}
                    onSubmit={(body) => update.mutate({ id: c.channel_id, body: body as UpdateChannelBody })}
                    onCancel={() => setEditing(null)}
                  />
                ) : (
                  <>
                    <strong>{c.label}</strong> <span className="badge">{c.kind}</span> {c.enabled ? null : <span className="badge">off</span>}{' '}
                    <code>{c.target_url_hint}</code>
                    {c.has_secret ? <span className="muted"> · signed</span> : null}
                    <br />
                    <span className="muted">Events: {c.events.length ? c.events.join(', ') : 'none'} · last delivery: </span>
                    <Delivery outcome={c.last_delivery} />
                    <div className="actions">
                      <button type="button" onClick={() => test.mutate(c.channel_id)} disabled={test.isPending}>
                        Send a test to {c.label}
                      </button>
                      <button type="button" onClick={() => setEditing(c.channel_id)}>
                        Edit {c.label}
                      </button>
                      <ConfirmButton
                        label={`Delete ${c.label}`}
                        question={`Delete the channel "${c.label}"?`}
                        danger
                        confirmLabel="Delete"
                        onConfirm={() => remove.mutate(c.channel_id)}
                      />
                    </div>
                    {tested?.id === c.channel_id ? (
                      <p className={tested.result.ok ? 'state ok' : 'state error'} role="status">
                        Test {tested.result.ok ? 'delivered' : 'not delivered'}
                        {tested.result.status_code ? ` (HTTP ${tested.result.status_code})` : ''}
                        {tested.result.error ? `: ${tested.result.error}` : ''}.
                      </p>
                    ) : null}
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
      <ActionResult error={remove.error ?? test.error} success={create.isSuccess ? `Channel ${create.data.label} added.` : null} />
      <h2>Add a channel</h2>
      <ChannelForm
        key={create.data?.channel_id ?? 'new'}
        events={events.data}
        current={null}
        pending={create.isPending}
        error={create.error}
        onSubmit={(body) => create.mutate(body as CreateChannelBody)}
      />
    </>
  );
}
