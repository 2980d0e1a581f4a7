import type { CodehostDeps, CodehostSettings } from '@planwarden/engine/codehost/client';
import { onCodehostJobEnd } from '@planwarden/engine/codehost/pull-report';
import type { ServerServices } from '../services';
import { gitHubClients } from './github-client';

const built = new WeakMap<ServerServices, CodehostDeps>();

/**
 * The code-host integration's dependencies for one server (built once per services object, so
 * the GitHub token cache is shared), with the platform settings read from the configuration
 * at every call (identity-api.md "Platform settings": codehost applies on the next request).
 * Also registers the job-end listener that publishes a pull request's report.
 */
export function codehostDeps(services: ServerServices): CodehostDeps {
  const existing = built.get(services);
  if (existing) return existing;
  const config = services.config;
  const settings = (): CodehostSettings => ({
    app_id: config.codehost.app_id,
    private_key: config.codehost.private_key,
    webhook_secret: config.codehost.webhook_secret,
    web_base_url: config.codehost.web_base_url,
    mention_prefix: config.codehost.mention_prefix,
    public_base_url: config.server.public_base_url,
    dashboard_base_url: config.server.dashboard_base_url,
    injection_scan_enabled: config.analysis.injection_scan_enabled,
    injection_scan_gate: config.analysis.injection_scan_gate,
  });
  const github = gitHubClients(() => config.codehost.api_base_url, services.engine.log);
  const deps: CodehostDeps = { analysis: services.analysis, settings, clientFor: github.clientFor, convertManifest: github.convertManifest };
  services.runner.onJobEnd('codehost', (job) => onCodehostJobEnd(deps, job));
  built.set(services, deps);
  return deps;
}
