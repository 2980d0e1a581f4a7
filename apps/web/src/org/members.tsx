import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client';
import type { AddMemberBody, CreateInviteBody, Invite, Member } from '../api/types';
import { useSession } from '../auth/session';
import { CopyButton } from '../ui/copy';
import { Field, when } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';

const ASSIGNABLE = ['viewer', 'member', 'admin'] as const;

/** Members and roles (GET/POST/PATCH/DELETE /orgs/{org_id}/members); admins change roles. */
export function Members() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/members`;
  const client = useQueryClient();
  const members = useQuery({ queryKey: ['members', session.org_id], queryFn: () => api.get<{ members: Member[] }>(base) });
  const refresh = () => client.invalidateQueries({ queryKey: ['members'] });
  const add = useMutation({ mutationFn: (body: AddMemberBody) => api.post(base, body), onSuccess: refresh });
  const update = useMutation({
    mutationFn: ({ id, role }: { id: string; role: string }) => api.patch(`${base}/${encodeURIComponent(id)}`, { role }),
    onSuccess: refresh,
  });
  const remove = useMutation({ mutationFn: (id: string) => api.delete(`${base}/${encodeURIComponent(id)}`), onSuccess: refresh });
  const admin = session.can('admin');
  return (
    <>
      <QueryView query={members} isEmpty={(d) => d.members.length === 0} empty="No members.">
        {(d) => (
          <table className="list">
            <caption className="visually-hidden">Members</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Active</th>
                {admin ? <th scope="col">Actions</th> : null}
              </tr>
            </thead>
            <tbody>
              {d.members.map((m) => (
                <tr key={m.user_id}>
                  <td>{m.email}</td>
                  <td>{m.name ?? '—'}</td>
                  <td>
                    {admin && m.role !== 'owner' && m.user_id !== session.user?.user_id ? (
                      <select aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => update.mutate({ id: m.user_id, role: e.target.value })}>
                        {ASSIGNABLE.map((r) => (
                          <option key={r}>{r}</option>
                        ))}
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td>{m.is_active ? 'yes' : 'no'}</td>
                  {admin ? (
                    <td>
                      {m.role !== 'owner' && m.user_id !== session.user?.user_id ? (
                        <button type="button" onClick={() => remove.mutate(m.user_id)}>
                          Remove
                        </button>
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      <ActionResult error={update.error ?? remove.error} />
      {admin ? (
        <form
          className="row"
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            add.mutate({ email: String(f.get('email')), role: f.get('role') as AddMemberBody['role'] });
          }}
        >
          <Field label="Add a registered user by e-mail">
            <input name="email" type="email" required />
          </Field>
          <Field label="Role">
            <select name="role" defaultValue="member">
              {ASSIGNABLE.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </Field>
          <button type="submit" disabled={add.isPending}>
            Add member
          </button>
          <ActionResult error={add.error} />
        </form>
      ) : null}
    </>
  );
}

/** Invitations (GET/POST/DELETE /orgs/{org_id}/invites): the join link is shown with a copy button. */
export function Invitations() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/invites`;
  const client = useQueryClient();
  const invites = useQuery({ queryKey: ['invites', session.org_id], queryFn: () => api.get<{ invites: Invite[] } | Invite[]>(base) });
  const [created, setCreated] = useState<{ join_url: string } | null>(null);
  const create = useMutation({
    mutationFn: (body: CreateInviteBody) => api.post<{ join_url: string }>(base, body),
    onSuccess: (r) => {
      setCreated(r);
      void client.invalidateQueries({ queryKey: ['invites'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`${base}/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invites'] }),
  });
  return (
    <>
      <form
        className="row"
        onSubmit={(e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const email = String(f.get('email') ?? '');
          create.mutate({ role: f.get('role') as CreateInviteBody['role'], ...(email ? { email } : {}) });
        }}
      >
        <Field label="E-mail (optional: empty makes an open link)">
          <input name="email" type="email" />
        </Field>
        <Field label="Role">
          <select name="role" defaultValue="member">
            {ASSIGNABLE.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </Field>
        <button type="submit" disabled={create.isPending}>
          Create invitation
        </button>
      </form>
      <ActionResult error={create.error ?? revoke.error} />
      {created ? (
        <p role="status">
          Join link: <code>{created.join_url}</code> <CopyButton value={created.join_url} />
        </p>
      ) : null}
      <QueryView query={invites} isEmpty={(d) => (Array.isArray(d) ? d : d.invites).length === 0} empty="No open invitations.">
        {(d) => (
          <ul className="plain">
            {(Array.isArray(d) ? d : d.invites).map((i) => (
              <li key={i.invite_id}>
                {i.email ?? 'open link'} as {i.role}, expires {when(i.expires_at)}{' '}
                <button type="button" onClick={() => revoke.mutate(i.invite_id)}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </>
  );
}
