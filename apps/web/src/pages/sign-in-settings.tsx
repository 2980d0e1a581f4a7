import * as Tabs from '@radix-ui/react-tabs';
import { useMutation, useQuery, useQueryClient, type UseMutationResult } from '@tanstack/react-query';
import type { FormEvent, ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { api, apiUrl, isDesktop } from '../api/client';
import type { SettingsDocument } from '../api/types';
import { useSession } from '../auth/session';
import { Field, Page, when } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';

/** The two social providers of identity-api.md "Social sign-in". */
const PROVIDERS = [
  { id: 'google', label: 'Google' },
  { id: 'microsoft', label: 'Microsoft' },
] as const;
type Provider = (typeof PROVIDERS)[number]['id'];
type Patch = Record<string, unknown>;
/** The one PATCH /admin/settings mutation of the page (kept above the forms, which remount on every saved change). */
type Save = UseMutationResult<SettingsDocument, Error, Patch>;

/** Plain words for the `test=` results of GET /admin/social-login/{provider}/test. */
const TEST_RESULTS: Record<string, string> = {
  ok: 'The round trip worked: the provider signed you in and returned a verified e-mail.',
  not_configured: 'The provider has no client id or secret yet.',
  discovery_failed: "The provider's OpenID discovery document could not be read.",
  token_exchange_failed: 'The provider refused the code exchange: check the client id, the secret and the redirect URI.',
  id_token_invalid: "The provider's ID token did not validate.",
  email_unverified: 'The account used has no verified e-mail address.',
  email_missing: 'The provider returned no e-mail address.',
  provider_error: 'The provider answered with an error.',
  cancelled: 'The sign-in was cancelled at the provider.',
};

/** The `test=` result the test round trip redirects back with, as a status or alert line. */
function TestResult({ params }: { params: URLSearchParams }) {
  const result = params.get('test');
  if (!result) return null;
  const ok = result === 'ok';
  const extra = [
    params.get('email') ? `E-mail: ${params.get('email')}` : null,
    params.get('warning') === 'sso_domain' ? "This e-mail's domain is claimed by an organization's single sign-on, which takes precedence." : null,
    params.get('detail'),
  ].filter(Boolean);
  return (
    <div className={ok ? 'state ok-box' : 'state error'} role={ok ? 'status' : 'alert'} data-testid="social-test-result">
      <p>
        <strong>
          Test of {PROVIDERS.find((p) => p.id === params.get('tab'))?.label ?? params.get('tab')} sign-in: {result.replace(/_/g, ' ')}.
        </strong>{' '}
        {TEST_RESULTS[result] ?? ''}
      </p>
      {extra.map((line) => (
        <p key={line}>{line}</p>
      ))}
    </div>
  );
}

/** A form that PATCHes /admin/settings with what `read` builds from it and reports the outcome. */
function SettingsForm({ label, read, save, children }: { label: string; read: (f: FormData) => Patch; save: Save; children: ReactNode }) {
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    save.mutate(read(new FormData(e.currentTarget)));
  };
  return (
    <form onSubmit={submit} aria-label={label}>
      {children}
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          Save
        </button>
        <ActionResult error={save.error} success={save.isSuccess ? 'Saved.' : null} />
      </div>
    </form>
  );
}

const text = (f: FormData, name: string) => {
  const v = String(f.get(name) ?? '').trim();
  return v === '' ? null : v;
};
const checked = (f: FormData, name: string) => f.get(name) === 'on';

function Check({ name, label, defaultChecked, hint }: { name: string; label: string; defaultChecked: boolean; hint?: string }) {
  return (
    <label className="check block">
      <input type="checkbox" name={name} defaultChecked={defaultChecked} /> {label}
      {hint ? <span className="hint"> — {hint}</span> : null}
    </label>
  );
}

/** Master switch, sign-up through social sign-in, auto-linking, registration mode and terms. */
function General({ doc, save }: { doc: SettingsDocument; save: Save }) {
  const social = doc.effective.social_login as Record<string, unknown>;
  const reg = doc.effective.registration as Record<string, unknown>;
  return (
    <SettingsForm
      label="General sign-in settings"
      save={save}
      read={(f) => ({
        social_login_enabled: checked(f, 'enabled'),
        social_login_allow_signup: checked(f, 'allow_signup'),
        social_login_allow_auto_link: checked(f, 'auto_link'),
        registration_allow_public_org_creation: f.get('mode') === 'open',
        registration_terms_version: text(f, 'terms_version'),
        registration_terms_url: text(f, 'terms_url'),
        registration_privacy_url: text(f, 'privacy_url'),
      })}
    >
      <h2>Social sign-in</h2>
      <Check
        name="enabled"
        label="Offer social sign-in"
        defaultChecked={social.enabled === true}
        hint="the master switch; each provider also needs its own switch, client id and secret"
      />
      <Check name="allow_signup" label="Let new people create an account by social sign-in" defaultChecked={social.allow_signup === true} />
      <Check
        name="auto_link"
        label="Link a provider account to an existing account with the same verified e-mail"
        defaultChecked={social.allow_auto_link === true}
      />
      <h2>Registration</h2>
      <fieldset>
        <legend>Who may create an organization when signing up</legend>
        <label className="check block">
          <input type="radio" name="mode" value="open" defaultChecked={reg.allow_public_org_creation === true} /> Anyone who signs up
        </label>
        <label className="check block">
          <input type="radio" name="mode" value="invite" defaultChecked={reg.allow_public_org_creation !== true} /> Nobody: new accounts join through
          invitations (superadmins still can)
        </label>
      </fieldset>
      <div className="form-grid">
        <Field label="Terms version" hint="With a version and a URL, every self-service sign-up must accept these terms.">
          <input name="terms_version" maxLength={32} defaultValue={String(reg.terms_version ?? '')} />
        </Field>
        <Field label="Terms URL">
          <input name="terms_url" type="url" defaultValue={String(reg.terms_url ?? '')} />
        </Field>
        <Field label="Privacy policy URL">
          <input name="privacy_url" type="url" defaultValue={String(reg.privacy_url ?? '')} />
        </Field>
      </div>
    </SettingsForm>
  );
}

/** One provider: enable, client id, write-only secret (Microsoft: tenant) and the test round trip. */
function ProviderTab({ doc, provider, label, save }: { doc: SettingsDocument; provider: Provider; label: string; save: Save }) {
  const social = doc.effective.social_login as Record<string, unknown>;
  const secretSet = doc.secrets_set[`social_login_${provider}_client_secret`] === true;
  const key = (field: string) => `social_login_${provider}_${field}`;
  const publicBase = ((doc.effective.server as { public_base_url?: string | null }).public_base_url ?? window.location.origin).replace(/\/+$/, '');
  return (
    <>
      <SettingsForm
        label={`${label} sign-in`}
        save={save}
        read={(f) => ({
          [key('enabled')]: checked(f, 'enabled'),
          [key('client_id')]: text(f, 'client_id'),
          ...(text(f, 'client_secret') ? { [key('client_secret')]: text(f, 'client_secret') } : {}),
          ...(provider === 'microsoft' ? { [key('tenant')]: text(f, 'tenant') ?? 'common' } : {}),
        })}
      >
        <Check name="enabled" label={`Offer ${label}`} defaultChecked={social[`${provider}_enabled`] === true} />
        <div className="form-grid">
          <Field label="Client id">
            <input name="client_id" maxLength={512} autoComplete="off" defaultValue={String(social[`${provider}_client_id`] ?? '')} />
          </Field>
          <Field
            label="Client secret"
            hint={secretSet ? 'A secret is stored; it is never shown. Type a new one to replace it.' : 'Not set yet. Write-only: never shown again.'}
          >
            <input name="client_secret" type="password" autoComplete="off" />
          </Field>
          {provider === 'microsoft' ? (
            <Field label="Tenant" hint="common, organizations, consumers or a tenant id.">
              <input name="tenant" defaultValue={String(social.microsoft_tenant ?? 'common')} />
            </Field>
          ) : null}
        </div>
        <p className="muted">
          Register the redirect URI <code>{`${publicBase}/api/v1/auth/oauth/${provider}/callback`}</code> with {label}.
        </p>
      </SettingsForm>
      <h2>Test</h2>
      <p>Runs a real sign-in with {label} (even while it is switched off) and comes back here with the result. No account is created or linked.</p>
      <a className="button" href={apiUrl(`/admin/social-login/${provider}/test`)}>
        Test {label} sign-in
      </a>
    </>
  );
}

/**
 * /admin/settings/sign-in?tab=general|google|microsoft (superadmin): platform sign-in settings
 * through GET/PATCH /admin/settings (identity-api.md "Platform settings", "Social sign-in"),
 * and the `test=` result of the provider round trip on return.
 */
export default function SignInSettings() {
  const session = useSession();
  const [params, setParams] = useSearchParams();
  const settings = useQuery({
    queryKey: ['admin', 'settings'],
    enabled: session.is_superadmin && !isDesktop(),
    queryFn: () => api.get<SettingsDocument>('/admin/settings'),
  });
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: (patch: Patch) => api.patch<SettingsDocument>('/admin/settings', patch),
    onSuccess: (doc) => client.setQueryData(['admin', 'settings'], doc),
  });
  // The desktop app has one local user and no sign-in; its provider test would navigate the window to /api/….
  if (isDesktop())
    return (
      <Page title="Sign-in settings">
        <p>Sign-in settings belong to a team server; the desktop app has no sign-in.</p>
      </Page>
    );
  if (!session.is_superadmin)
    return (
      <Page title="Sign-in settings">
        <p>This section is for platform administrators.</p>
      </Page>
    );
  const tabs = [{ id: 'general', label: 'General' }, ...PROVIDERS];
  const tab = tabs.find((t) => t.id === params.get('tab'))?.id ?? 'general';
  return (
    <Page title="Sign-in settings">
      <TestResult params={params} />
      <QueryView query={settings}>
        {(doc) => (
          <>
            <Tabs.Root
              value={tab}
              onValueChange={(v) => {
                save.reset();
                setParams({ tab: v });
              }}
            >
              <Tabs.List className="tabs" aria-label="Sign-in settings sections">
                {tabs.map((t) => (
                  <Tabs.Trigger key={t.id} value={t.id}>
                    {t.label}
                  </Tabs.Trigger>
                ))}
              </Tabs.List>
              <Tabs.Content value="general" className="tab-panel">
                {tab === 'general' ? <General key={doc.updated_at ?? ''} doc={doc} save={save} /> : null}
              </Tabs.Content>
              {PROVIDERS.map((p) => (
                <Tabs.Content key={p.id} value={p.id} className="tab-panel">
                  {tab === p.id ? <ProviderTab key={doc.updated_at ?? ''} doc={doc} provider={p.id} label={p.label} save={save} /> : null}
                </Tabs.Content>
              ))}
            </Tabs.Root>
            <p className="muted small">
              {doc.updated_at ? `Last changed ${when(doc.updated_at)}${doc.updated_by ? ` by ${doc.updated_by}` : ''}.` : 'Never changed: the defaults apply.'}
            </p>
          </>
        )}
      </QueryView>
    </Page>
  );
}
