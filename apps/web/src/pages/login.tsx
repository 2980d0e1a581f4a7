import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { call } from '../api/client';
import type { LoginBody, MfaChallenge, SecondFactorBody, SessionIdentity } from '../api/types';
import { safeNext } from '../auth/next';
import { Field } from '../ui/page';
import { ErrorBox } from '../ui/states';

/** The `mfa_token` of `/login#mfa_token=...` (identity-api.md: the second step's URL). */
function mfaTokenOf(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('mfa_token');
}

/**
 * Sign-in: e-mail and password (POST /auth/session), then, when the account has 2FA, a code
 * step (POST /auth/session/2fa) taking a TOTP code or a recovery code. Returns to `?next=`.
 */
export default function Login() {
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const mfaToken = mfaTokenOf(location.hash);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [useRecovery, setUseRecovery] = useState(false);

  const signedIn = async (identity: SessionIdentity) => {
    client.clear();
    await navigate(identity.org_id ? safeNext(location.search) : '/onboarding', { replace: true });
  };

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setBusy(true);
    setError(null);
    try {
      if (mfaToken) {
        const body: SecondFactorBody = { mfa_token: mfaToken, code: String(form.get('code')) };
        await signedIn(await call<SessionIdentity>({ method: 'POST', path: '/auth/session/2fa', json: body }, { quiet401: true }));
      } else {
        const body: LoginBody = { email: String(form.get('email')), password: String(form.get('password')) };
        const res = await call<SessionIdentity | MfaChallenge>({ method: 'POST', path: '/auth/session', json: body }, { quiet401: true });
        if ('mfa_token' in res) await navigate({ search: location.search, hash: `mfa_token=${encodeURIComponent(res.mfa_token)}` });
        else await signedIn(res);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth-card">
      <h1>Sign in to Planwarden</h1>
      <form onSubmit={(e) => void submit(e)} aria-describedby={error ? 'login-error' : undefined}>
        {mfaToken ? (
          <>
            <p>Your account uses two-factor authentication.</p>
            <Field label={useRecovery ? 'Recovery code' : 'Authenticator code'}>
              {/* biome-ignore lint/a11y/noAutofocus: the only field of the two-factor step of the sign-in form */}
              <input name="code" required autoFocus autoComplete="one-time-code" inputMode={useRecovery ? 'text' : 'numeric'} />
            </Field>
            <button type="button" className="link" onClick={() => setUseRecovery(!useRecovery)}>
              {useRecovery ? 'Use an authenticator code instead' : 'Use a recovery code instead'}
            </button>
            <button type="submit" disabled={busy}>
              Verify
            </button>
            <Link to={{ pathname: '/login', search: location.search }}>Start over</Link>
          </>
        ) : (
          <>
            <Field label="E-mail">
              {/* biome-ignore lint/a11y/noAutofocus: the first field of the sign-in form */}
              <input name="email" type="email" required autoFocus autoComplete="username" />
            </Field>
            <Field label="Password">
              <input name="password" type="password" required autoComplete="current-password" />
            </Field>
            <button type="submit" disabled={busy}>
              Sign in
            </button>
          </>
        )}
      </form>
      {error ? (
        <div id="login-error">
          <ErrorBox error={error} />
        </div>
      ) : null}
      <p>
        No account yet? <Link to={{ pathname: '/register', search: location.search }}>Create one</Link>
      </p>
    </main>
  );
}
