import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api } from '../api/client';
import { fieldError, getOrNull } from '../api/optional';
import type { SsoBody, SsoConnection, SsoPatchBody } from '../api/types';
import { useSession } from '../auth/session';
import { ConfirmButton } from '../ui/confirm';
import { CopyButton } from '../ui/copy';
import { Field, when } from '../ui/page';
import { ActionResult, Empty, QueryView } from '../ui/states';
import { SsoDomains } from './sso-domains';

/** Roles a provisioned user may get (never owner: identity-api.md "SSO connection"). */
export const NON_OWNER_ROLES = ['viewer', 'member', 'admin'] as const;

/** Comma- or space-separated domains, or null (any domain) when empty. */
function domains(value: string): string[] | null {
  const list = value
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);
  return list.length ? list : null;
}

/**
 * Organization → Single sign-on: the org's OIDC connection (POST/GET/PATCH/DELETE
 * /orgs/{org_id}/sso, identity-api.md "Single sign-on"). The client secret is write-only.
 */
export function SingleSignOn() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/sso`;
  const client = useQueryClient();
  const key = ['sso', session.org_id];
  const connection = useQuery({ queryKey: key, queryFn: () => getOrNull<SsoConnection>(base) });
  const save = useMutation({
    mutationFn: ({ exists, body }: { exists: boolean; body: SsoPatchBody }) =>
      exists ? api.patch<SsoConnection>(base, body) : api.post<SsoConnection>(base, body as SsoBody),
    onSuccess: (saved) => client.setQueryData(key, saved),
  });
  const remove = useMutation({ mutationFn: () => api.delete(base), onSuccess: () => client.setQueryData(key, null) });
  const callback = `${window.location.origin}/api/v1/auth/sso/callback`;
  return (
    <QueryView query={connection}>
      {(c) => {
        const submit = (e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const secret = String(f.get('client_secret') ?? '');
          save.mutate({
            exists: c !== null,
            body: {
              display_name: String(f.get('display_name')).trim(),
              issuer: String(f.get('issuer')).trim(),
              client_id: String(f.get('client_id')).trim(),
              allowed_domains: domains(String(f.get('allowed_domains') ?? '')),
              default_role: f.get('default_role') as SsoBody['default_role'],
              enabled: f.get('enabled') === 'on',
              ...(secret ? { client_secret: secret } : {}),
            },
          });
        };
        return (
          <>
            {c ? (
              <p>
                Connected since {when(c.created_at)}
                {c.updated_at ? `, changed ${when(c.updated_at)}` : ''}. {c.enabled ? 'Members can sign in with it.' : 'Switched off.'}
              </p>
            ) : (
              <Empty>No single sign-on connection: members sign in with a password or a social provider.</Empty>
            )}
            <p>
              Register this redirect URI with your identity provider: <code>{callback}</code> <CopyButton value={callback} label="Copy redirect URI" />
            </p>
            <form className="form-grid" onSubmit={submit} key={c?.updated_at ?? c?.created_at ?? 'new'} aria-label="Single sign-on connection">
              <Field label="Display name" hint="Shown on the sign-in page.">
                <input name="display_name" required maxLength={200} defaultValue={c?.display_name ?? ''} />
              </Field>
              <Field label="Issuer URL" error={fieldError(save.error, 'issuer', 'url')}>
                <input name="issuer" type="url" required defaultValue={c?.issuer ?? ''} placeholder="https://login.example.com" />
              </Field>
              <Field label="Client id">
                <input name="client_id" required maxLength={512} autoComplete="off" defaultValue={c?.client_id ?? ''} />
              </Field>
              <Field
                label="Client secret"
                hint={c?.client_secret_set ? 'Stored, never shown. Type a new one to replace it.' : 'Write-only: never shown again.'}
              >
                <input name="client_secret" type="password" autoComplete="off" />
              </Field>
              <Field
                label="Allowed e-mail domains"
                hint="Comma separated; empty allows any domain. Each domain must be verified (below) before it signs in existing accounts; a verified domain belongs to one organization only."
                error={fieldError(save.error, 'allowed_domains')}
              >
                <input name="allowed_domains" defaultValue={c?.allowed_domains?.join(', ') ?? ''} />
              </Field>
              <Field label="Role of new users">
                <select name="default_role" defaultValue={c?.default_role ?? 'member'}>
                  {NON_OWNER_ROLES.map((r) => (
                    <option key={r}>{r}</option>
                  ))}
                </select>
              </Field>
              <label className="check">
                <input type="checkbox" name="enabled" defaultChecked={c?.enabled ?? true} /> Enabled
              </label>
              <button type="submit" disabled={save.isPending}>
                {c ? 'Save connection' : 'Connect'}
              </button>
            </form>
            <ActionResult
              error={fieldError(save.error, 'issuer', 'url', 'allowed_domains') ? null : (save.error ?? remove.error)}
              success={save.isSuccess ? 'Saved.' : null}
            />
            {c ? <SsoDomains connection={c} base={base} queryKey={key} /> : null}
            {c ? (
              <ConfirmButton label="Disconnect single sign-on" question="Disconnect single sign-on?" danger onConfirm={() => remove.mutate()}>
                <p>Members who signed in through it keep their accounts and memberships but need another way to sign in.</p>
              </ConfirmButton>
            ) : null}
          </>
        );
      }}
    </QueryView>
  );
}
