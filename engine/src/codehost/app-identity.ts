import type { EngineContext } from '../context/engine-context';
import { NotImplementedError } from '../core/errors';
import type { AppIdentity, CodehostSettings } from './client';
import type { CodehostIntegrationDoc } from './codehost-store';

/**
 * Which GitHub App serves an org (analysis-api.md "Code-hosting integration": an org's own app
 * is preferred for secret lookup and token minting, else the platform settings are used).
 */

/** The app that mints tokens for an org: its own app when it has one, else the platform app; null when neither is configured. */
export function appIdentityFor(ctx: EngineContext, settings: CodehostSettings, doc: CodehostIntegrationDoc | null): AppIdentity | null {
  if (doc?.codehost_app) return { appId: doc.codehost_app.app_id, privateKey: ctx.stores.box.open(doc.codehost_app.private_key_sealed) };
  if (settings.app_id && settings.private_key) return { appId: settings.app_id, privateKey: settings.private_key };
  return null;
}

/**
 * appIdentityFor, or NotImplementedError (501, analysis-api.md "Code-hosting integration": no app
 * configured) when neither the org nor the platform has an app.
 */
export function requireAppIdentity(ctx: EngineContext, settings: CodehostSettings, doc: CodehostIntegrationDoc | null): AppIdentity {
  const identity = appIdentityFor(ctx, settings, doc);
  if (!identity) throw new NotImplementedError("No GitHub App is configured (codehost.app_id and codehost.private_key, or the organization's own app)");
  return identity;
}

/** The secret a webhook for `doc` is verified with: its own app's, else the platform's; null when neither exists. */
export function webhookSecretFor(ctx: EngineContext, settings: CodehostSettings, doc: CodehostIntegrationDoc | null): string | null {
  if (doc?.codehost_app) return ctx.stores.box.open(doc.codehost_app.webhook_secret_sealed);
  return settings.webhook_secret;
}
