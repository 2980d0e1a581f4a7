import { useMutation, useQueryClient } from '@tanstack/react-query';
import QRCode from 'qrcode';
import { useEffect, useState, type FormEvent } from 'react';
import { api } from '../api/client';
import { useSession } from '../auth/session';
import { CopyButton } from '../ui/copy';
import { Field, Page } from '../ui/page';
import { ActionResult } from '../ui/states';

/** A QR code of `text` as a data: image (qrcode library; no network). */
function Qr({ text }: { text: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    void QRCode.toDataURL(text, { margin: 1, width: 200 }).then(setSrc);
  }, [text]);
  return src ? <img src={src} width={200} height={200} alt="QR code for your authenticator app" /> : null;
}

const formValues = (e: FormEvent<HTMLFormElement>) => Object.fromEntries(new FormData(e.currentTarget)) as Record<string, string>;

/** Two-factor enrolment (POST /auth/me/2fa/enroll → confirm, with QR and recovery codes) and disable. */
export function TwoFactor() {
  const session = useSession();
  const client = useQueryClient();
  const enroll = useMutation({ mutationFn: () => api.post<{ secret_provisioning_uri: string; manual_entry_code: string }>('/auth/me/2fa/enroll') });
  const confirm = useMutation({
    mutationFn: (code: string) => api.post<{ recovery_codes: string[] }>('/auth/me/2fa/confirm', { code }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['auth'] }),
  });
  const disable = useMutation({
    mutationFn: (current_password: string) => api.post('/auth/me/2fa/disable', { current_password }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['auth'] }),
  });
  if (confirm.data) {
    return (
      <div role="status">
        <p>
          <strong>Two-factor authentication is on.</strong> Keep these recovery codes somewhere safe: each works once, and they are shown only now.
        </p>
        <pre className="mono">{confirm.data.recovery_codes.join('\n')}</pre>
        <CopyButton value={confirm.data.recovery_codes.join('\n')} label="Copy recovery codes" />
      </div>
    );
  }
  if (session.user?.two_factor_enabled) {
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          disable.mutate(formValues(e).current_password);
        }}
      >
        <p>
          Two-factor authentication is <strong>on</strong>.
        </p>
        <Field label="Current password">
          <input type="password" name="current_password" required autoComplete="current-password" />
        </Field>
        <button type="submit" disabled={disable.isPending}>
          Turn off two-factor authentication
        </button>
        <ActionResult error={disable.error} success={disable.isSuccess ? 'Two-factor authentication is off.' : null} />
      </form>
    );
  }
  return (
    <div>
      <p>
        Two-factor authentication is <strong>off</strong>.
      </p>
      {!enroll.data ? (
        <button type="button" onClick={() => enroll.mutate()} disabled={enroll.isPending}>
          Set up two-factor authentication
        </button>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate(formValues(e).code);
          }}
        >
          <p>
            Scan this code with your authenticator app, or enter <code>{enroll.data.manual_entry_code}</code> by hand.
          </p>
          <Qr text={enroll.data.secret_provisioning_uri} />
          <Field label="Code from the app">
            <input name="code" required inputMode="numeric" autoComplete="one-time-code" />
          </Field>
          <button type="submit" disabled={confirm.isPending}>
            Confirm
          </button>
        </form>
      )}
      <ActionResult error={enroll.error ?? confirm.error} />
    </div>
  );
}

/** `/account`: profile (PATCH /auth/me), password (POST /auth/me/password), 2FA and recovery codes. */
export default function Account() {
  const session = useSession();
  const client = useQueryClient();
  const profile = useMutation({
    mutationFn: (name: string) => api.patch('/auth/me', { name: name || null }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['auth'] }),
  });
  const password = useMutation({ mutationFn: (body: Record<string, string>) => api.post('/auth/me/password', body) });
  if (!session.user)
    return (
      <Page title="Account">
        <p>You are signed in with an API key (or the server runs without sign-in): there is no personal account to manage.</p>
      </Page>
    );
  return (
    <Page title="Account">
      <section aria-labelledby="profile">
        <h2 id="profile">Profile</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            profile.mutate(formValues(e).name);
          }}
        >
          <p>
            E-mail: <strong>{session.user.email}</strong>
          </p>
          <Field label="Name">
            <input name="name" defaultValue={session.user.name ?? ''} maxLength={200} />
          </Field>
          <button type="submit" disabled={profile.isPending}>
            Save profile
          </button>
          <ActionResult error={profile.error} success={profile.isSuccess ? 'Saved.' : null} />
        </form>
      </section>
      <section aria-labelledby="password">
        <h2 id="password">Password</h2>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const v = formValues(e);
            password.mutate({ current_password: v.current_password, new_password: v.new_password });
            e.currentTarget.reset();
          }}
        >
          <Field label="Current password">
            <input type="password" name="current_password" required autoComplete="current-password" />
          </Field>
          <Field label="New password" hint="At least 8 characters. Signs out your other sessions.">
            <input type="password" name="new_password" required minLength={8} autoComplete="new-password" />
          </Field>
          <button type="submit" disabled={password.isPending}>
            Change password
          </button>
          <ActionResult error={password.error} success={password.isSuccess ? 'Password changed.' : null} />
        </form>
      </section>
      <section aria-labelledby="twofa">
        <h2 id="twofa">Two-factor authentication and recovery codes</h2>
        <TwoFactor />
      </section>
    </Page>
  );
}
