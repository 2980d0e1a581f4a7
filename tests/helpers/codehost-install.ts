import type { FakeGitHub } from '../fakes/github';
import type { TestServer } from './test-server';

/** The App's setup URL on the test server (what an operator registers with the GitHub App). */
export function setupUrlOf(server: TestServer): string {
  return `${server.url}/api/v1/integrations/codehost/setup`;
}

/** Asks for the install link (POST …/install-link) as `headers` (a session cookie or an API key). */
export async function installLink(server: TestServer, orgId: string, headers: Record<string, string>): Promise<Response> {
  return server.api(`/orgs/${orgId}/integrations/codehost/install-link`, { method: 'POST', headers });
}

/** GET of a setup-URL address (absolute) as `headers`, not following the redirect into the dashboard. */
export function visitSetup(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, { headers, redirect: 'manual' });
}

/**
 * Installs the platform app as a browser does: fetches the install link, opens it on the fake
 * GitHub (which creates an installation and redirects to the setup URL set with
 * `gh.setSetupUrl`), then follows that redirect with the caller's credentials. Returns the setup
 * answer and the new installation's id.
 */
export async function installThroughLink(
  server: TestServer,
  orgId: string,
  headers: Record<string, string>,
): Promise<{ setup: Response; installationId: string; setupAddress: string }> {
  const link = await installLink(server, orgId, headers);
  if (link.status !== 200) throw new Error(`install-link answered ${link.status}: ${await link.text()}`);
  const { install_url } = (await link.json()) as { install_url: string };
  const github = await fetch(install_url, { redirect: 'manual' });
  const setupAddress = github.headers.get('location');
  if (github.status !== 302 || !setupAddress) throw new Error(`the fake GitHub answered ${github.status}`);
  const installationId = new URL(setupAddress).searchParams.get('installation_id') as string;
  return { setup: await visitSetup(setupAddress, headers), installationId, setupAddress };
}

/** Registers the test server's setup URL with the fake GitHub's app `appId`. */
export function registerSetupUrl(gh: FakeGitHub, server: TestServer, appId: number): void {
  gh.setSetupUrl(appId, setupUrlOf(server));
}
