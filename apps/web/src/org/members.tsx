import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import type { Invite, Member } from '../api/types';
import { useSession } from '../auth/session';
import { when } from '../ui/page';
import { ASSIGNABLE } from './invite';
import { ActionResult, QueryView } from '../ui/states';

/** Members and roles (GET/PATCH/DELETE /orgs/{org_id}/members); admins change roles. New members come in through the Invite button (invite.tsx). */
export function Members() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/members`;
  const client = useQueryClient();
  const members = useQuery({ queryKey: ['members', session.org_id], queryFn: () => api.get<{ members: Member[] }>(base) });
  const refresh = () => client.invalidateQueries({ queryKey: ['members'] });
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
    </>
  );
}

/** Open invitations (GET/DELETE /orgs/{org_id}/invites) with Revoke; they are made with the Invite button (invite.tsx). */
export function Invitations() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/invites`;
  const client = useQueryClient();
  const invites = useQuery({ queryKey: ['invites', session.org_id], queryFn: () => api.get<{ invites: Invite[] } | Invite[]>(base) });
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`${base}/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['invites'] }),
  });
  return (
    <>
      <ActionResult error={revoke.error} />
      <QueryView
        query={invites}
        isEmpty={(d) => (Array.isArray(d) ? d : d.invites).length === 0}
        empty="No open invitations. Invite makes one; its link is shown once, when it is made."
      >
        {(d) => (
          <ul className="plain">
            {(Array.isArray(d) ? d : d.invites).map((i) => (
              <li key={i.invite_id}>
                {i.email ?? 'open link'} as {i.role}, {i.revoked ? 'revoked' : `expires ${when(i.expires_at)}`}{' '}
                {i.revoked ? null : (
                  <button type="button" onClick={() => revoke.mutate(i.invite_id)}>
                    Revoke
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </>
  );
}
