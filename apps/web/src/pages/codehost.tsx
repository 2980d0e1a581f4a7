import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/client';
import { detailIf, getOrNull } from '../api/optional';
import type { CodehostConfig, CodehostConfigBody, CodehostInstallLink, CodehostManifest } from '../api/types';
import { useSession } from '../auth/session';
import { ConfirmButton } from '../ui/confirm';
import { ModelField, modelKey, splitModelKey } from '../ui/model-select';
import { Field, Page, when } from '../ui/page';
import { ActionResult, Empty, QueryView } from '../ui/states';

/**
 * Sends the browser to `url` with a top-level form POST of `fields` (GitHub's app-manifest flow
 * takes the manifest only that way; a fetch could not follow it to github.com).
 */
function postTopLevelForm(url: string, fields: Record<string, string>): void {
  const form = document.createElement('form');
  form.method = 'post';
  form.action = url;
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    form.append(input);
  }
  document.body.append(form);
  form.submit();
}

/** What the operator must configure when the server answers 501 (analysis-api.md "Code-hosting integration"). */
function OperatorNote({ detail }: { detail: string }) {
  return (
    <div className="state unavailable" role="note">
      <p>
        <strong>The server's operator has to configure this first.</strong> {detail}.
      </p>
      <p>
        Set <code>server.public_base_url</code> to the address GitHub can reach this server at (in <code>planwarden.config.yaml</code>, as{' '}
        <code>PLANWARDEN_SERVER_PUBLIC_BASE_URL</code>, or by a platform administrator in the platform settings). Without it, install the operator's platform
        app instead with the button above.
      </p>
    </div>
  );
}

/**
 * "Install on GitHub": asks the server for an install link carrying this org's signed state
 * and sends the browser there; GitHub's setup redirect binds the installation and comes back
 * with `?installed=<id>` (docs/decisions.md "Installation binding").
 */
function InstallApp({ base, installed }: { base: string; installed: boolean }) {
  const link = useMutation({
    mutationFn: () => api.post<CodehostInstallLink>(`${base}/install-link`),
    onSuccess: (l) => window.location.assign(l.install_url),
  });
  const notConfigured = detailIf(link.error, 501);
  return (
    <section aria-labelledby="install-app">
      <h2 id="install-app">GitHub App installation</h2>
      <p>
        {installed
          ? 'Install the app on another account to replace this installation.'
          : 'Install the GitHub App on the repositories to review. GitHub sends you back here and the installation is connected to this organization.'}
      </p>
      <button type="button" className="primary" onClick={() => link.mutate()} disabled={link.isPending || link.isSuccess}>
        Install on GitHub
      </button>
      {notConfigured ? (
        <p className="state unavailable" role="note">
          {notConfigured}.
        </p>
      ) : (
        <ActionResult error={link.error} />
      )}
    </section>
  );
}

/**
 * The connection form: model of the catalogue, rule type (POST …/integrations/codehost, upsert);
 * for a platform administrator also an installation id (bound on their word, audited).
 */
function ConnectionForm({ current, superadmin, onSave }: { current: CodehostConfig | null; superadmin: boolean; onSave: (body: CodehostConfigBody) => void }) {
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const installation = String(f.get('installation_id') ?? '').trim();
    const ruleType = String(f.get('rule_type') ?? '').trim();
    onSave({ ...splitModelKey(String(f.get('model'))), rule_type: ruleType || null, ...(installation ? { installation_id: installation } : {}) });
  };
  return (
    <form className="form-grid" onSubmit={submit} aria-label="Code-host connection">
      {superadmin ? (
        <Field
          label="Installation id"
          hint="Platform administrators only: binds this installation to the organization without the install link (audited). Leave empty to keep the bound one."
        >
          <input name="installation_id" inputMode="numeric" pattern="\d{1,20}" defaultValue={current?.installation_id ?? ''} />
        </Field>
      ) : null}
      <ModelField
        defaultValue={current?.llm_backend && current.model ? modelKey(current.llm_backend, current.model) : undefined}
        hint="Pull-request analyses use the organization's stored credential for this provider."
      />
      <Field label="Rule type (optional)">
        <input name="rule_type" maxLength={100} defaultValue={current?.rule_type ?? ''} />
      </Field>
      <button type="submit">{current ? 'Save connection' : 'Connect'}</button>
    </form>
  );
}

/** The org's own GitHub App: create it through the manifest flow, or drop its credentials. */
function OwnApp({ base, config }: { base: string; config: CodehostConfig | null }) {
  const client = useQueryClient();
  const manifest = useMutation({
    mutationFn: () => api.post<CodehostManifest>(`${base}/manifest`),
    onSuccess: (m) => postTopLevelForm(m.target_url, { manifest: JSON.stringify(m.manifest) }),
  });
  const dropApp = useMutation({ mutationFn: () => api.delete(`${base}/app`), onSuccess: () => client.invalidateQueries({ queryKey: ['codehost'] }) });
  const notConfigured = detailIf(manifest.error, 501);
  const app = config?.codehost_app;
  return (
    <section aria-labelledby="own-app">
      <h2 id="own-app">Your organization's own GitHub App</h2>
      {app ? (
        <>
          <p>
            App{' '}
            <a href={app.html_url} target="_blank" rel="noreferrer noopener">
              {app.app_slug}
            </a>{' '}
            (id {app.app_id}).
            {config?.installation_id ? null : ' Install it on your repositories in GitHub; the installation is picked up automatically.'}
          </p>
          <ConfirmButton label="Remove app credentials" question="Remove this organization's GitHub App credentials?" danger onConfirm={() => dropApp.mutate()}>
            <p>
              Webhooks signed by this app are refused afterwards; the platform app (if the operator configured one) is used again. The app itself stays on
              GitHub until you delete it there.
            </p>
          </ConfirmButton>
        </>
      ) : (
        <>
          <p>Instead of the operator's platform app, create a private GitHub App owned by you: GitHub asks you to confirm, then sends you back here.</p>
          <button type="button" onClick={() => manifest.mutate()} disabled={manifest.isPending}>
            Create a GitHub App
          </button>
        </>
      )}
      {notConfigured ? <OperatorNote detail={notConfigured} /> : <ActionResult error={manifest.error ?? dropApp.error} />}
    </section>
  );
}

/**
 * /integrations/codehost: the org's GitHub App connection (analysis-api.md "Code-hosting
 * integration"), admin only. `?app_created=1` (the manifest callback's redirect) and
 * `?installed=<id>` (the setup redirect's) show success.
 */
export default function Codehost() {
  const session = useSession();
  const [params] = useSearchParams();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/integrations/codehost`;
  const client = useQueryClient();
  const admin = session.can('admin');
  const config = useQuery({ queryKey: ['codehost', base], enabled: admin, queryFn: () => getOrNull<CodehostConfig>(base) });
  const save = useMutation({
    mutationFn: (body: CodehostConfigBody) => api.post<CodehostConfig>(base, body),
    onSuccess: (saved) => client.setQueryData(['codehost', base], saved),
  });
  const disconnect = useMutation({
    mutationFn: () => api.delete(base),
    onSuccess: () => {
      save.reset();
      client.setQueryData(['codehost', base], null);
    },
  });
  if (!admin)
    return (
      <Page title="GitHub">
        <Empty>Only organization admins and owners connect GitHub. Ask one of them; pull-request results still appear under Findings.</Empty>
      </Page>
    );
  return (
    <Page title="GitHub">
      <p className="small">
        <Link to="/integrations">All integrations</Link>
      </p>
      {params.get('app_created') === '1' ? (
        <p className="state ok" role="status">
          Your GitHub App was created. Install it on the repositories to review in GitHub; its installation is recorded automatically.
        </p>
      ) : null}
      {params.get('setup_error') ? (
        <p className="state error" role="alert">
          GitHub came back, but the installation was not connected: {params.get('setup_error')} Start again with Install on GitHub below, signed in as an
          administrator of this organization.
        </p>
      ) : null}
      {params.get('installed') ? (
        <p className="state ok" role="status">
          GitHub installation {params.get('installed')} is connected to this organization.
        </p>
      ) : null}
      <p>Connect a GitHub App installation: every pull request push is analysed, one comment is kept up to date and a commit status gates the merge.</p>
      <QueryView query={config}>
        {(c) => (
          <>
            <h2>Connection</h2>
            {c ? (
              <dl className="facts">
                <dt>Installation id</dt>
                <dd>{c.installation_id ?? 'not installed yet'}</dd>
                <dt>Model</dt>
                <dd>{c.llm_backend ? `${c.llm_backend} · ${c.model}` : 'not chosen yet'}</dd>
                <dt>Rule type</dt>
                <dd>{c.rule_type ?? '—'}</dd>
                <dt>Connected</dt>
                <dd>{when(c.created_at)}</dd>
              </dl>
            ) : (
              <Empty>Not connected: GitHub pull requests are not analysed yet.</Empty>
            )}
            <InstallApp base={base} installed={Boolean(c?.installation_id)} />
            <h2>Model</h2>
            <ConnectionForm key={c?.created_at ?? 'new'} current={c} superadmin={session.is_superadmin} onSave={(body) => save.mutate(body)} />
            <ActionResult error={save.error} success={save.isSuccess ? 'Connection saved.' : null} />
            {c ? (
              <ConfirmButton label="Disconnect" question="Disconnect GitHub?" danger onConfirm={() => disconnect.mutate()}>
                <p>This removes the installation, the model choice and the organization's own app credentials. Pull requests are no longer analysed.</p>
              </ConfirmButton>
            ) : null}
            <ActionResult error={disconnect.error} />
            <OwnApp base={base} config={c} />
          </>
        )}
      </QueryView>
    </Page>
  );
}
