import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api } from '../api/client';
import { BACKENDS, ROLES, type ApiKey, type CreateKeyBody, type CreatedKey } from '../api/types';
import { useSession } from '../auth/session';
import { CopyButton } from '../ui/copy';
import { Field, when } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';
import { CiSnippets } from './ci-snippet';

/**
 * Service keys (POST/GET/DELETE /auth/keys): the secret is shown once, with a copy button, and
 * the CI snippets that use it; each key's last use (to the minute) and expiry. Keys never expire
 * (identity-api.md "Service accounts" has no expiry): the table says so, and Revoke ends one.
 */
export function ServiceKeys() {
  const client = useQueryClient();
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => api.get<{ keys: ApiKey[] }>('/auth/keys') });
  const create = useMutation({
    mutationFn: (body: CreateKeyBody) => api.post<CreatedKey>('/auth/keys', body),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys'] }),
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`/auth/keys/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['keys'] }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const allow = String(f.get('ip_allowlist') ?? '')
      .split(/[\s,]+/)
      .filter(Boolean);
    create.mutate({ name: String(f.get('name')) || null, role: f.get('role') as CreateKeyBody['role'], ip_allowlist: allow.length ? allow : null });
  };
  return (
    <>
      <form className="row" onSubmit={submit}>
        <Field label="Key name">
          <input name="name" required maxLength={200} />
        </Field>
        <Field label="Role">
          <select name="role" defaultValue="member">
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </Field>
        <Field label="IP allowlist (optional)" hint="IPs or CIDR blocks, comma separated.">
          <input name="ip_allowlist" />
        </Field>
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <ActionResult error={create.error ?? revoke.error} />
      {create.data ? (
        <div className="secret" role="status">
          <p>
            <strong>Copy this key now: it is shown only once.</strong>
          </p>
          <code data-testid="new-key">{create.data.key}</code> <CopyButton value={create.data.key} />
        </div>
      ) : null}
      <QueryView query={keys} isEmpty={(d) => d.keys.length === 0} empty="No service keys yet.">
        {(d) => (
          <table className="list">
            <caption className="visually-hidden">Service keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">IP allowlist</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {d.keys.map((k) => (
                <tr key={k.key_id}>
                  <td>{k.name ?? k.key_id}</td>
                  <td>{k.role}</td>
                  <td>{when(k.created_at)}</td>
                  <td>{k.last_used_at ? when(k.last_used_at) : 'never used'}</td>
                  <td>{k.is_active ? 'never (revoke to end it)' : '—'}</td>
                  <td>{k.ip_allowlist?.length ? k.ip_allowlist.join(', ') : 'any address'}</td>
                  <td>{k.is_active ? 'active' : 'revoked'}</td>
                  <td>
                    {k.is_active ? (
                      <button type="button" onClick={() => revoke.mutate(k.key_id)}>
                        Revoke
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      <CiSnippets />
    </>
  );
}

/** LLM credentials (POST/GET/DELETE /orgs/{org_id}/llm-credentials): keys are write-only. */
export function Credentials() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/llm-credentials`;
  const client = useQueryClient();
  const creds = useQuery({
    queryKey: ['credentials', session.org_id],
    queryFn: () => api.get<{ credentials: { provider: string; created_at: string }[] }>(base),
  });
  const save = useMutation({
    mutationFn: (body: { provider: string; api_key: string }) => api.post(base, body),
    onSuccess: () => client.invalidateQueries({ queryKey: ['credentials'] }),
  });
  const remove = useMutation({
    mutationFn: (p: string) => api.delete(`${base}/${encodeURIComponent(p)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['credentials'] }),
  });
  return (
    <>
      <form
        className="row"
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          save.mutate({ provider: String(f.get('provider')), api_key: String(f.get('api_key')) });
          e.currentTarget.reset();
        }}
      >
        <Field label="Provider">
          <select name="provider">
            {BACKENDS.map((b) => (
              <option key={b}>{b}</option>
            ))}
          </select>
        </Field>
        <Field label="API key" hint="Encrypted at rest; never shown again.">
          <input name="api_key" type="password" required autoComplete="off" />
        </Field>
        <button type="submit" disabled={save.isPending}>
          Store credential
        </button>
      </form>
      <ActionResult error={save.error ?? remove.error} success={save.isSuccess ? 'Credential stored.' : null} />
      <QueryView query={creds} isEmpty={(d) => d.credentials.length === 0} empty="No stored credential: analyses need an API key per run.">
        {(d) => (
          <ul className="plain">
            {d.credentials.map((c) => (
              <li key={c.provider}>
                <strong>{c.provider}</strong> stored {when(c.created_at)}{' '}
                <button type="button" onClick={() => remove.mutate(c.provider)}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </>
  );
}
