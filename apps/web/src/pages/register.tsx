import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { api, call } from '../api/client';
import type { RegisterBody } from '../api/types';
import { safeNext } from '../auth/next';
import { Field } from '../ui/page';
import { ErrorBox, Loading } from '../ui/states';

interface RegistrationOptions {
  allow_public_org_creation: boolean;
  terms?: { version: string; url: string | null };
}

/**
 * Registration (POST /auth/register) in its three modes: account only, account with a new
 * organization (when public creation is allowed), or joining by invitation (`?invite=token`).
 * Terms acceptance is asked when the operator configured terms.
 */
export default function Register() {
  const location = useLocation();
  const navigate = useNavigate();
  const client = useQueryClient();
  const invite = new URLSearchParams(location.search).get('invite');
  const options = useQuery({ queryKey: ['registration-options'], queryFn: () => api.get<RegistrationOptions>('/auth/registration-options') });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const orgName = String(form.get('org_name') ?? '').trim();
    const body: RegisterBody = {
      email: String(form.get('email')),
      password: String(form.get('password')),
      name: String(form.get('name') ?? '') || null,
      ...(orgName ? { org_name: orgName } : {}),
      ...(invite ? { invite_token: invite } : {}),
      ...(options.data?.terms ? { accepted_terms_version: form.get('terms') ? options.data.terms.version : null } : {}),
    };
    setBusy(true);
    setError(null);
    try {
      const identity = await call<{ org_id: string | null }>({ method: 'POST', path: '/auth/register', json: body }, { quiet401: true });
      client.clear();
      await navigate(identity.org_id ? safeNext(location.search) : '/onboarding', { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth-card">
      <h1>Create your Planwarden account</h1>
      {options.isPending ? (
        <Loading />
      ) : options.isError ? (
        <ErrorBox error={options.error} retry={() => void options.refetch()} />
      ) : (
        <form onSubmit={(e) => void submit(e)}>
          {invite ? <p>You are joining an organization by invitation.</p> : null}
          <Field label="E-mail">
            {/* biome-ignore lint/a11y/noAutofocus: the first field of the registration form */}
            <input name="email" type="email" required autoFocus autoComplete="username" />
          </Field>
          <Field label="Name (optional)">
            <input name="name" autoComplete="name" />
          </Field>
          <Field label="Password" hint="At least 8 characters.">
            <input name="password" type="password" required minLength={8} autoComplete="new-password" />
          </Field>
          {!invite && options.data.allow_public_org_creation ? (
            <Field label="Organization name (optional)" hint="Leave empty to create or join one later.">
              <input name="org_name" />
            </Field>
          ) : null}
          {options.data.terms ? (
            <label className="check">
              <input type="checkbox" name="terms" required /> I accept the{' '}
              {options.data.terms.url ? (
                <a href={options.data.terms.url} target="_blank" rel="noreferrer noopener">
                  terms of service
                </a>
              ) : (
                'terms of service'
              )}{' '}
              (version {options.data.terms.version})
            </label>
          ) : null}
          <button type="submit" disabled={busy}>
            Create account
          </button>
        </form>
      )}
      {error ? <ErrorBox error={error} /> : null}
      <p>
        Already registered? <Link to={{ pathname: '/login', search: location.search }}>Sign in</Link>
      </p>
    </main>
  );
}
