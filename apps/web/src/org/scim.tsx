import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { fieldError, getOrNull } from '../api/optional';
import type { ScimBody, ScimConfig } from '../api/types';
import { useSession } from '../auth/session';
import { ConfirmButton } from '../ui/confirm';
import { CopyButton } from '../ui/copy';
import { Field, when } from '../ui/page';
import { ActionResult, Empty, QueryView } from '../ui/states';
import { NON_OWNER_ROLES } from './sso';

type Role = (typeof NON_OWNER_ROLES)[number];
type Mapping = { pattern: string; role: Role };

/** The SCIM bearer token, shown once with a copy button (creation and rotation). */
function OneTimeToken({ token }: { token: string }) {
  return (
    <div className="secret" role="status">
      <p>
        <strong>Copy this token into your identity provider now: it is shown only once.</strong>
      </p>
      <code data-testid="scim-token">{token}</code> <CopyButton value={token} />
    </div>
  );
}

/** Ordered group → role mappings (first match wins): a row per mapping, add and remove. */
function MappingsEditor({ value, onChange }: { value: Mapping[]; onChange: (next: Mapping[]) => void }) {
  const set = (i: number, patch: Partial<Mapping>) => onChange(value.map((m, j) => (j === i ? { ...m, ...patch } : m)));
  return (
    <fieldset className="mappings">
      <legend>Group → role mappings (first match wins)</legend>
      {value.length === 0 ? <p className="muted">No mapping: everyone gets the default role.</p> : null}
      {value.map((m, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: mappings have no id and their pattern is edited in place; the row's position is its identity
        <div className="row" key={i}>
          <Field label={`Group pattern ${i + 1}`} hint={i === 0 ? 'A regular expression matched against the group names, e.g. ^platform-admins$' : undefined}>
            <input value={m.pattern} required maxLength={500} onChange={(e) => set(i, { pattern: e.target.value })} />
          </Field>
          <Field label={`Role ${i + 1}`}>
            <select value={m.role} onChange={(e) => set(i, { role: e.target.value as Role })}>
              {NON_OWNER_ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </Field>
          <button type="button" onClick={() => onChange(value.filter((_, j) => j !== i))}>
            Remove mapping {i + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...value, { pattern: '', role: 'member' }])}>
        Add mapping
      </button>
    </fieldset>
  );
}

/** The enable / default role / mappings form, POST (first time) or PATCH. */
function ScimForm({ current, onSave, pending, error }: { current: ScimConfig | null; onSave: (body: ScimBody) => void; pending: boolean; error: unknown }) {
  const [mappings, setMappings] = useState<Mapping[]>((current?.group_role_mappings as Mapping[] | undefined) ?? []);
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    onSave({ enabled: f.get('enabled') === 'on', default_role: f.get('default_role') as Role, group_role_mappings: mappings });
  };
  return (
    <form onSubmit={submit} aria-label="SCIM provisioning">
      <label className="check block">
        <input type="checkbox" name="enabled" defaultChecked={current?.enabled ?? true} /> Accept provisioning from the identity provider
      </label>
      <Field label="Default role">
        <select name="default_role" defaultValue={current?.default_role ?? 'member'}>
          {NON_OWNER_ROLES.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </Field>
      <MappingsEditor value={mappings} onChange={setMappings} />
      {fieldError(error, 'group_role_mappings') ? (
        <p className="field-error" role="alert">
          {fieldError(error, 'group_role_mappings')}
        </p>
      ) : null}
      <div className="actions">
        <button type="submit" disabled={pending}>
          {current ? 'Save SCIM settings' : 'Enable SCIM'}
        </button>
      </div>
    </form>
  );
}

/**
 * Organization → SCIM: provisioning from the identity provider (identity-api.md "SCIM"):
 * enable, the bearer token shown once with copy and rotate, group → role mappings.
 */
export function Scim() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/scim`;
  const client = useQueryClient();
  const key = ['scim', session.org_id];
  const config = useQuery({ queryKey: key, queryFn: () => getOrNull<ScimConfig>(base) });
  const [token, setToken] = useState<string | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: key });
  const save = useMutation({
    mutationFn: async ({ exists, body }: { exists: boolean; body: ScimBody }) => {
      if (exists) {
        await api.patch(base, body);
        return null;
      }
      return (await api.post<{ token: string }>(base, body)).token;
    },
    onSuccess: (created) => {
      if (created) setToken(created);
      void refresh();
    },
  });
  const rotate = useMutation({ mutationFn: () => api.post<{ token: string }>(`${base}/rotate-token`), onSuccess: (r) => setToken(r.token) });
  const remove = useMutation({
    mutationFn: () => api.delete(base),
    onSuccess: () => {
      setToken(null);
      client.setQueryData(key, null);
    },
  });
  return (
    <QueryView query={config}>
      {(c) => (
        <>
          {c ? (
            <>
              <p>
                SCIM is {c.enabled ? 'on' : 'off'} since {when(c.created_at)}. Tenant URL for your identity provider: <code>{c.base_url}</code>{' '}
                <CopyButton value={c.base_url} label="Copy tenant URL" />
              </p>
              <ConfirmButton label="Rotate token" question="Rotate the SCIM token?" onConfirm={() => rotate.mutate()}>
                <p>The current token stops working at once; paste the new one into your identity provider.</p>
              </ConfirmButton>
            </>
          ) : (
            <Empty>SCIM is not set up: users and groups are managed here by hand.</Empty>
          )}
          {token ? <OneTimeToken token={token} /> : null}
          <ScimForm
            key={c?.updated_at ?? c?.created_at ?? 'new'}
            current={c}
            pending={save.isPending}
            error={save.error}
            onSave={(body) => save.mutate({ exists: c !== null, body })}
          />
          <ActionResult
            error={fieldError(save.error, 'group_role_mappings') ? null : (save.error ?? rotate.error ?? remove.error)}
            success={save.isSuccess ? 'Saved.' : null}
          />
          {c ? (
            <ConfirmButton label="Turn off SCIM" question="Turn off SCIM and invalidate its token?" danger onConfirm={() => remove.mutate()}>
              <p>Teams and memberships it created are kept.</p>
            </ConfirmButton>
          ) : null}
        </>
      )}
    </QueryView>
  );
}
