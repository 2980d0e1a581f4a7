import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { api, ApiError, call } from '../api/client';
import type { SessionIdentity } from '../api/types';
import { ErrorBox, Loading, ActionResult } from '../ui/states';

/** `/invite/{token}`: the public preview (GET /invite/{token}), then accept (POST …/accept) when signed in. */
export default function InviteAccept() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  const client = useQueryClient();
  const preview = useQuery({ queryKey: ['invite', token], queryFn: () => api.get<Record<string, unknown>>(`/invite/${encodeURIComponent(token)}`) });
  const me = useQuery({
    queryKey: ['auth', 'me'],
    queryFn: () => call<SessionIdentity>({ method: 'GET', path: '/auth/me' }, { quiet401: true }),
    retry: false,
  });
  const accept = useMutation({
    mutationFn: () => api.post(`/invite/${encodeURIComponent(token)}/accept`),
    onSuccess: async () => {
      client.clear();
      await navigate('/overview');
    },
  });
  const here = `/invite/${encodeURIComponent(token)}`;
  return (
    <main id="main" className="auth-card">
      <h1>Invitation</h1>
      {preview.isPending ? (
        <Loading />
      ) : preview.isError ? (
        preview.error instanceof ApiError && preview.error.status === 404 ? (
          <p role="alert">This invitation is unknown, expired or revoked.</p>
        ) : (
          <ErrorBox error={preview.error} retry={() => void preview.refetch()} />
        )
      ) : (
        <>
          <p>
            You are invited to <strong>{String(preview.data.org_name ?? preview.data.org_id ?? 'an organization')}</strong> as{' '}
            <strong>{String(preview.data.role ?? 'member')}</strong>.
          </p>
          {me.data ? (
            <button type="button" onClick={() => accept.mutate()} disabled={accept.isPending}>
              Accept as {me.data.user.email}
            </button>
          ) : (
            <p>
              <Link to={`/login?next=${encodeURIComponent(here)}`}>Sign in</Link> or{' '}
              <Link to={`/register?invite=${encodeURIComponent(token)}`}>create an account</Link> to accept.
            </p>
          )}
          <ActionResult error={accept.error} />
        </>
      )}
    </main>
  );
}
