import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { Component, StrictMode, Suspense, lazy, useEffect, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, Navigate, Route, Routes, useLocation, useNavigate } from 'react-router';
import { ApiError, setUnauthorizedHandler } from './api/client';
import { loginPath, RequireSession } from './auth/session';
import { prefetchFindings } from './findings/data';
import { Layout } from './ui/layout';
import { Loading } from './ui/states';
import './styles.css';

const Login = lazy(() => import('./pages/login'));
const Register = lazy(() => import('./pages/register'));
const InviteAccept = lazy(() => import('./pages/invite'));
const Onboarding = lazy(() => import('./pages/onboarding'));
const Overview = lazy(() => import('./pages/overview'));
const Findings = lazy(() => import('./pages/findings'));
const Analyse = lazy(() => import('./pages/analyse'));
const Jobs = lazy(() => import('./pages/jobs'));
const JobDetail = lazy(() => import('./pages/job-detail'));
const Plan = lazy(() => import('./pages/plan'));
const Reports = lazy(() => import('./pages/reports'));
const Rules = lazy(() => import('./pages/rules'));
const Templates = lazy(() => import('./pages/templates'));
const Organization = lazy(() => import('./pages/organization'));
const Account = lazy(() => import('./pages/account'));
const Admin = lazy(() => import('./pages/admin'));
const Codehost = lazy(() => import('./pages/codehost'));
const Integrations = lazy(() => import('./pages/integrations'));
const SignInSettings = lazy(() => import('./pages/sign-in-settings'));
const NotFound = lazy(() => import('./pages/not-found'));
const DesktopSettings = lazy(() => import('./desktop/page'));

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

/** A 401 from any call sends the user to /login and back to this page afterwards. */
function UnauthorizedRedirect() {
  const navigate = useNavigate();
  const location = useLocation();
  useEffect(() => {
    setUnauthorizedHandler(() => {
      if (location.pathname.startsWith('/login')) return;
      queryClient.clear();
      void navigate(loginPath(location), { replace: true });
    });
    return () => setUnauthorizedHandler(null);
  }, [navigate, location]);
  return null;
}

function Signed({ children, needOrg }: { children: React.ReactNode; needOrg?: boolean }) {
  return <RequireSession needOrg={needOrg}>{children}</RequireSession>;
}

/** A render error shows a message and a reload button instead of a blank page. */
class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state = { error: null as Error | null };
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <main id="main" className="auth-card" role="alert">
        <h1>Something went wrong</h1>
        <p>{this.state.error.message}</p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </main>
    );
  }
}

function App() {
  return (
    <BrowserRouter>
      <UnauthorizedRedirect />
      <ErrorBoundary>
        <Suspense fallback={<Loading />}>
          <Routes>
            <Route path="/login" element={<Login />} />
            <Route path="/register" element={<Register />} />
            <Route path="/invite/:token" element={<InviteAccept />} />
            <Route
              path="/onboarding"
              element={
                <Signed needOrg={false}>
                  <Onboarding />
                </Signed>
              }
            />
            <Route
              element={
                <Signed>
                  <Layout />
                </Signed>
              }
            >
              <Route index element={<Navigate to="/overview" replace />} />
              <Route path="/overview" element={<Overview />} />
              {/* One route for the list and a finding's own page (/findings/{namespace}/{resource_hash}/{rule_id}): moving between them keeps the workbench mounted. */}
              <Route path="/findings/:namespace?/:resource_hash?/:rule_id?" element={<Findings />} />
              <Route path="/analyse" element={<Analyse />} />
              <Route path="/jobs" element={<Jobs />} />
              <Route path="/jobs/:jobId" element={<JobDetail />} />
              <Route path="/plan/:namespace?" element={<Plan />} />
              <Route path="/reports" element={<Reports />} />
              <Route path="/rules" element={<Rules />} />
              <Route path="/templates" element={<Templates />} />
              <Route path="/desktop" element={<DesktopSettings />} />
              <Route path="/organization" element={<Organization />} />
              <Route path="/account" element={<Account />} />
              <Route path="/admin" element={<Admin />} />
              <Route path="/integrations" element={<Integrations />} />
              <Route path="/integrations/codehost" element={<Codehost />} />
              <Route path="/admin/settings/sign-in" element={<SignInSettings />} />
              <Route path="*" element={<NotFound />} />
            </Route>
          </Routes>
        </Suspense>
      </ErrorBoundary>
    </BrowserRouter>
  );
}

// A cold load of /findings (or a finding's own page under it) fetches its code and first page
// alongside GET /auth/me instead of after it (budget: interactive within 1.5 s with 10,000 findings).
if (window.location.pathname === '/findings' || window.location.pathname.startsWith('/findings/')) {
  void import('./pages/findings');
  prefetchFindings(queryClient, new URLSearchParams(window.location.search));
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
