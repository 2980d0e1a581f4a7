import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import type { AdminUserPatchBody, Member, OrgSummary } from '../api/types';
import { useSession } from '../auth/session';
import { ConfirmButton } from '../ui/confirm';
import { CopyButton } from '../ui/copy';
import { Field } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';

const userPath = (id: string) => `/admin/users/${encodeURIComponent(id)}`;

/**
 * The actions on one account (identity-api.md "Platform administration"): rename and
 * deactivate / reactivate (PATCH /admin/users/{id}), superadmin (POST …/superadmin), password
 * reset (the temporary password shown once) and 2FA reset, each behind a confirmation.
 */
function UserActions({ member, onDone }: { member: Member; onDone: () => void }) {
  const session = useSession();
  const client = useQueryClient();
  const refresh = () => client.invalidateQueries({ queryKey: ['admin', 'members'] });
  const [message, setMessage] = useState<string | null>(null);
  const patch = useMutation({
    mutationFn: (body: AdminUserPatchBody) => api.patch(userPath(member.user_id), body),
    onSuccess: () => {
      setMessage('Saved.');
      void refresh();
    },
  });
  const superadmin = useMutation({
    mutationFn: (enabled: boolean) => api.post<{ is_superadmin: boolean }>(`${userPath(member.user_id)}/superadmin`, { enabled }),
    onSuccess: (r) =>
      setMessage(
        r.is_superadmin
          ? `${member.email} is now a platform administrator; their sessions were ended.`
          : `${member.email} is no longer a platform administrator; their sessions were ended.`,
      ),
  });
  const reset = useMutation({ mutationFn: () => api.post<{ temporary_password: string }>(`${userPath(member.user_id)}/reset-password`) });
  const twoFactor = useMutation({
    mutationFn: () => api.post<{ detail: string }>(`${userPath(member.user_id)}/2fa-reset`),
    onSuccess: (r) => setMessage(r.detail),
  });
  const self = member.user_id === session.user?.user_id;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []); // keyboard users land on the panel they opened
  const rename = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const name = String(new FormData(e.currentTarget).get('name') ?? '').trim();
    patch.mutate({ name: name || null });
  };
  return (
    <section className="panel" aria-labelledby="user-actions">
      <h3 id="user-actions" tabIndex={-1} ref={heading}>
        {member.email}
      </h3>
      <form className="row" onSubmit={rename}>
        <Field label="Name">
          <input name="name" maxLength={200} defaultValue={member.name ?? ''} />
        </Field>
        <button type="submit" disabled={patch.isPending}>
          Save name
        </button>
      </form>
      <div className="actions">
        {member.account_active ? (
          <ConfirmButton
            label="Deactivate account"
            question={`Deactivate ${member.email}?`}
            danger
            disabled={self}
            onConfirm={() => patch.mutate({ is_active: false })}
          >
            <p>Every session ends at once and the account can no longer sign in, in any organization.</p>
          </ConfirmButton>
        ) : (
          <ConfirmButton label="Reactivate account" question={`Reactivate ${member.email}?`} onConfirm={() => patch.mutate({ is_active: true })} />
        )}
        <ConfirmButton
          label="Make platform administrator"
          question={`Make ${member.email} a platform administrator?`}
          disabled={self}
          onConfirm={() => superadmin.mutate(true)}
        >
          <p>They can then manage every organization and the platform settings. Their sessions end; they sign in again.</p>
        </ConfirmButton>
        <ConfirmButton
          label="Remove platform administrator"
          question={`Remove platform administration from ${member.email}?`}
          disabled={self}
          onConfirm={() => superadmin.mutate(false)}
        />
        <ConfirmButton label="Reset password" question={`Reset the password of ${member.email}?`} danger onConfirm={() => reset.mutate()}>
          <p>A temporary password replaces theirs and every session ends. You see it once, to hand over.</p>
        </ConfirmButton>
        <ConfirmButton label="Reset two-factor" question={`Reset two-factor authentication of ${member.email}?`} danger onConfirm={() => twoFactor.mutate()}>
          <p>Their authenticator and recovery codes are removed and every session ends.</p>
        </ConfirmButton>
        <button type="button" onClick={onDone}>
          Close
        </button>
      </div>
      {reset.data ? (
        <div className="secret" role="status">
          <p>
            <strong>Temporary password for {member.email}: shown only once.</strong>
          </p>
          <code data-testid="temporary-password">{reset.data.temporary_password}</code> <CopyButton value={reset.data.temporary_password} />
        </div>
      ) : null}
      <ActionResult error={patch.error ?? superadmin.error ?? reset.error ?? twoFactor.error} success={message} />
    </section>
  );
}

/**
 * Superadmin → Users: there is no flat directory of all users (identity-api.md "Platform
 * administration"), so pick an organization and act on its members
 * (GET /admin/organizations/{org_id}/members).
 */
export function AdminUsers({ organizations }: { organizations: OrgSummary[] }) {
  const [orgId, setOrgId] = useState(organizations[0]?.org_id ?? '');
  const [selected, setSelected] = useState<string | null>(null);
  const members = useQuery({
    queryKey: ['admin', 'members', orgId],
    enabled: orgId !== '',
    queryFn: () => api.get<{ members: Member[] }>(`/admin/organizations/${encodeURIComponent(orgId)}/members`),
  });
  const chosen = members.data?.members.find((m) => m.user_id === selected) ?? null;
  return (
    <>
      <p className="muted">Accounts are listed per organization: there is no platform-wide user directory.</p>
      <Field label="Organization to manage">
        <select
          value={orgId}
          onChange={(e) => {
            setOrgId(e.target.value);
            setSelected(null);
          }}
        >
          {organizations.map((o) => (
            <option key={o.org_id} value={o.org_id}>
              {o.name}
            </option>
          ))}
        </select>
      </Field>
      <QueryView query={members} isEmpty={(d) => d.members.length === 0} empty="This organization has no members.">
        {(d) => (
          <table className="list">
            <caption className="visually-hidden">Members of the organization</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Account</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {d.members.map((m) => (
                <tr key={m.user_id}>
                  <td>{m.email}</td>
                  <td>{m.name ?? '—'}</td>
                  <td>
                    {m.role}
                    {m.is_active ? '' : ' (membership inactive)'}
                  </td>
                  <td>{m.account_active ? 'active' : 'deactivated'}</td>
                  <td>
                    <button type="button" onClick={() => setSelected(m.user_id)} aria-expanded={selected === m.user_id}>
                      Manage {m.email}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      {chosen ? <UserActions key={chosen.user_id} member={chosen} onDone={() => setSelected(null)} /> : null}
    </>
  );
}
