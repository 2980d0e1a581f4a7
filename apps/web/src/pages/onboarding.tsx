import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../api/client';
import type { CreateOrgBody } from '../api/types';
import { useSession } from '../auth/session';
import { Field } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';

interface PendingInvitation {
  invite_id: string;
  org_id: string;
  org_name?: string;
  role: string;
}

/** `/onboarding`: a signed-in user without an organization creates one or accepts a pending invitation. */
export default function Onboarding() {
  const session = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const invitations = useQuery({ queryKey: ['auth', 'invitations'], queryFn: () => api.get<PendingInvitation[]>('/auth/me/invitations') });
  const done = async () => {
    client.clear();
    await navigate('/overview', { replace: true });
  };
  const create = useMutation({
    mutationFn: async (body: CreateOrgBody) => {
      const org = await api.post<{ org_id: string }>('/orgs', body);
      await api.post('/auth/session/switch', { org_id: org.org_id });
    },
    onSuccess: done,
  });
  const accept = useMutation({ mutationFn: (id: string) => api.post(`/auth/me/invitations/${encodeURIComponent(id)}/accept`), onSuccess: done });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name });
  };
  return (
    <main id="main" className="auth-card wide">
      <h1>Welcome, {session.user?.name || session.user?.email}</h1>
      <p>You are not in an organization yet. Create one, or accept an invitation.</p>
      <section aria-labelledby="create-org">
        <h2 id="create-org">Create an organization</h2>
        <form onSubmit={submit}>
          <Field label="Organization name">
            <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
          </Field>
          <button type="submit" disabled={create.isPending}>
            Create organization
          </button>
        </form>
        <ActionResult error={create.error} />
      </section>
      <section aria-labelledby="pending">
        <h2 id="pending">Pending invitations</h2>
        <QueryView query={invitations} isEmpty={(d) => d.length === 0} empty="No invitation is addressed to your e-mail.">
          {(list) => (
            <ul className="plain">
              {list.map((i) => (
                <li key={i.invite_id}>
                  {i.org_name ?? i.org_id} as {i.role}{' '}
                  <button type="button" onClick={() => accept.mutate(i.invite_id)} disabled={accept.isPending}>
                    Accept
                  </button>
                </li>
              ))}
            </ul>
          )}
        </QueryView>
        <ActionResult error={accept.error} />
      </section>
    </main>
  );
}
