import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ApiError, call } from '../api/client';
import type { OrgRole, SessionIdentity } from '../api/types';
import { Loading, ErrorBox } from '../ui/states';

const RANK: Record<OrgRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** GET /auth/me: `user` is null for an API-key principal or a server running without auth. */
export interface Session extends Omit<SessionIdentity, 'user'> {
  user: SessionIdentity['user'] | null;
  /** The session's role is at least `role` in the current org (the API enforces it anyway). */
  can(role: OrgRole): boolean;
  /** Re-reads GET /auth/me after a login, switch or logout. */
  refresh(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

/** The signed-in identity; only inside <RequireSession>. */
export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside RequireSession');
  return s;
}

/** The path and query to come back to after signing in. */
export function loginPath(location: { pathname: string; search: string }): string {
  const next = location.pathname + location.search;
  return next === '/' || next.startsWith('/login') ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}

export const ME_KEY = ['auth', 'me'] as const;

/**
 * Loads GET /auth/me; a 401 sends the user to /login?next=<here>. With `needOrg` a user with
 * no organization goes to /onboarding.
 */
export function RequireSession({ children, needOrg = true }: { children: ReactNode; needOrg?: boolean }) {
  const location = useLocation();
  const client = useQueryClient();
  const me = useQuery({
    queryKey: ME_KEY,
    queryFn: () => call<SessionIdentity>({ method: 'GET', path: '/auth/me' }, { quiet401: true }),
    retry: false,
    staleTime: 60_000,
  });
  if (me.isPending) return <Loading what="Checking your session" />;
  if (me.isError) {
    if (me.error instanceof ApiError && me.error.status === 401) return <Navigate to={loginPath(location)} replace />;
    return <ErrorBox error={me.error} retry={() => void me.refetch()} />;
  }
  if (needOrg && !me.data.org_id) return <Navigate to="/onboarding" replace />;
  const role = me.data.role;
  const session: Session = {
    ...me.data,
    can: (wanted) => role !== null && RANK[role] >= RANK[wanted],
    refresh: async () => {
      await client.invalidateQueries();
    },
  };
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
