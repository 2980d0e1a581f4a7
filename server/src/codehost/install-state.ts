import { INSTALL_STATE_TTL_MINUTES } from '@planwarden/engine/codehost/installation-binding';
import { BadRequestError } from '@planwarden/engine/core/errors';
import type { Actor } from '@planwarden/engine/context/identity-context';
import type { SessionSigner } from '../auth/sessions';

/**
 * The install state of the GitHub App's install link (docs/decisions.md "Installation
 * binding"): a state token of the session signer (sessions.ts mintState, as the SSO and social
 * sign-in states), naming the org and the principal it was issued to and when, valid
 * INSTALL_STATE_TTL_MINUTES. GitHub echoes it to the setup URL, where only that principal, still
 * in that org, may redeem it.
 */

const STATE_TYPE = 'codehost_install';

/** The principal as the state records it: the account, else the key (`_anon`, `_bootstrap` included). */
function principalOf(actor: Actor): string {
  return actor.userId ? `user:${actor.userId}` : `key:${actor.keyId ?? ''}`;
}

/** A fresh install state for `orgId` issued to `actor` at `now`, with its expiry. */
export async function mintInstallState(signer: SessionSigner, orgId: string, actor: Actor, now: Date): Promise<{ state: string; expiresAt: string }> {
  const state = await signer.mintState(STATE_TYPE, { org: orgId, principal: principalOf(actor), issued_at: now.toISOString() }, INSTALL_STATE_TTL_MINUTES);
  return { state, expiresAt: new Date(now.getTime() + INSTALL_STATE_TTL_MINUTES * 60_000).toISOString() };
}

/**
 * Verifies an install state presented at the setup URL by `actor` scoped to `orgId`; returns when
 * it was issued. BadRequestError (400) when it is missing, forged, expired, of another type, or
 * issued to another org or principal.
 */
export async function redeemInstallState(signer: SessionSigner, token: string | undefined, orgId: string, actor: Actor): Promise<Date> {
  const data = token ? await signer.verifyState(token, STATE_TYPE) : null;
  const issuedAt = typeof data?.issued_at === 'string' ? new Date(data.issued_at) : null;
  if (!data || !issuedAt || Number.isNaN(issuedAt.getTime()))
    throw new BadRequestError('The install state is missing, expired or invalid: start again from the integration page');
  if (data.org !== orgId || data.principal !== principalOf(actor)) {
    throw new BadRequestError('The install state was issued to another organization or user: start again from the integration page');
  }
  return issuedAt;
}
