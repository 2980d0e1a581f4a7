import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useState } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { api, isDesktop } from '../api/client';
import type { OrgRole } from '../api/types';
import { useSession } from '../auth/session';
import { Loading } from './states';

/** `team: true`: a team-server feature (code hosts, platform administration), hidden in the desktop app. */
const NAV: { to: string; label: string; role?: OrgRole; team?: boolean }[] = [
  { to: '/overview', label: 'Overview' },
  { to: '/findings', label: 'Findings' },
  { to: '/plan', label: 'Plan' },
  { to: '/analyse', label: 'Analyse', role: 'member' },
  { to: '/jobs', label: 'Jobs' },
  { to: '/reports', label: 'Reports' },
  { to: '/rules', label: 'Rules' },
  { to: '/templates', label: 'Templates' },
  { to: '/organization', label: 'Organization' },
  { to: '/integrations', label: 'Integrations', team: true },
  ...(isDesktop() ? [{ to: '/desktop', label: 'Sync & Ollama' }] : []),
  { to: '/account', label: 'Account' },
];

/** Lists the user's organizations and switches the session to another (POST /auth/session/switch). */
function OrgSwitcher() {
  const session = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const orgs = useQuery({
    queryKey: ['auth', 'orgs'],
    enabled: session.user !== null,
    queryFn: () => api.get<{ org_id: string; name: string; role: string }[]>('/auth/me/organizations'),
  });
  const switchTo = useMutation({
    mutationFn: (orgId: string) => api.post('/auth/session/switch', { org_id: orgId }),
    onSuccess: async () => {
      client.clear();
      await navigate('/overview');
    },
  });
  if (!orgs.data) return <span className="muted">{session.org_id}</span>;
  return (
    <label className="org-switcher">
      <span className="visually-hidden">Organization</span>
      <select value={session.org_id ?? ''} onChange={(e) => switchTo.mutate(e.target.value)} disabled={switchTo.isPending}>
        {orgs.data.map((o) => (
          <option key={o.org_id} value={o.org_id}>
            {o.name} ({o.role})
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * The menu of narrow screens (styles.css hides the navigation and the account box below 760 px):
 * open or closed, closed again on every navigation and by Escape.
 */
function useMenu() {
  const [open, setOpen] = useState(false);
  const location = useLocation();
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new location is the trigger to close the menu.
  useEffect(() => setOpen(false), [location.pathname, location.search]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);
  return { open, toggle: () => setOpen((o) => !o), close: () => setOpen(false) };
}

/** The signed-in frame: skip link, navigation (behind a menu button on phones), org switcher, sign-out, and the page. */
export function Layout() {
  const session = useSession();
  const client = useQueryClient();
  const navigate = useNavigate();
  const menu = useMenu();
  const logout = useMutation({
    mutationFn: () => api.post('/auth/logout'),
    onSettled: async () => {
      client.clear();
      await navigate('/login');
    },
  });
  return (
    <div className={menu.open ? 'shell menu-open' : 'shell'}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Planwarden</span>
        <button type="button" className="menu-toggle" aria-expanded={menu.open} aria-controls="main-nav" onClick={menu.toggle}>
          Menu
        </button>
        <div className="account-box">
          <OrgSwitcher />
          <span className="who">
            {session.user?.email ?? (isDesktop() ? 'Local user' : 'API key or open access')} · {session.role ?? 'no role'}
          </span>
          {/* Only a signed-in person has a session to end (not open access, an API key or the desktop). */}
          {session.user && !isDesktop() ? (
            <button type="button" onClick={() => logout.mutate()}>
              Sign out
            </button>
          ) : null}
        </div>
      </header>
      <nav className="sidenav" id="main-nav" aria-label="Main">
        <ul>
          {NAV.filter((n) => (!n.role || session.can(n.role)) && !(n.team && isDesktop())).map((n) => (
            <li key={n.to}>
              <NavLink to={n.to} onClick={menu.close}>
                {n.label}
              </NavLink>
            </li>
          ))}
          {session.is_superadmin && !isDesktop() ? (
            <li>
              <NavLink to="/admin" onClick={menu.close}>
                Administration
              </NavLink>
            </li>
          ) : null}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  );
}
