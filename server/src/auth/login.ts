import { randomBytes } from 'node:crypto';
import { UnauthorizedError } from '@planwarden/engine/core/errors';
import { isoNow, type IdentityCtx } from '@planwarden/engine/context/identity-context';
import { hashPassword, sha256Hex, verifyPassword } from '@planwarden/engine/identity/secrets';
import type { UserDoc } from '@planwarden/engine/identity/types';
import { mintSessionFor, type SessionResult } from './account-service';
import { loginSubject, sourceKey } from './brute-force';
import type { IdentityServices } from './identity';
import { matchTotpStep } from './totp';

let dummyHash: Promise<string> | null = null;

/** The scrypt hash unknown e-mails are checked against (made once per process, same parameters). */
export function primeDummyHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(18).toString('base64'));
  return dummyHash;
}

/**
 * Checks `password` against `stored`; without a stored hash (unknown e-mail, SSO account) it
 * still runs one scrypt against a dummy hash and answers false, so the response time does not
 * tell which e-mails have an account.
 */
async function verifyAccountPassword(password: string, stored: string | null): Promise<boolean> {
  if (stored) return verifyPassword(password, stored);
  await verifyPassword(password, await primeDummyHash());
  return false;
}

/**
 * POST /auth/session: password login (identity-api.md "Registration, login, sessions"). 401 bad
 * credentials or inactive account (one message, one timing); with 2FA enabled,
 * `{mfa_token, methods}` and no session. 429 + Retry-After while this source is backed off for
 * this account or for every account (brute-force.ts): the attempt is reserved on both counters
 * before the password is hashed, so parallel guesses cannot outrun the count. A locked or
 * 2FA-requiring org does not block login.
 */
export async function passwordLogin(
  ids: IdentityServices,
  ctx: IdentityCtx,
  input: { email: string; password: string },
): Promise<SessionResult | { mfa: { mfa_token: string; methods: string[] } }> {
  const account = input.email.toLowerCase();
  const subjects = [
    ['ip', sourceKey(ctx.actor.ip)],
    ['login', loginSubject(ctx.actor.ip, account)],
  ] as const;
  const user = await ids.guard.attempt(subjects, async (attempt) => {
    const found = await ctx.engine.stores.users.byEmail(account);
    const ok = await verifyAccountPassword(input.password, found?.password_hash ?? null);
    if (!found || !ok || !found.is_active) {
      await attempt.fail();
      throw new UnauthorizedError('Invalid e-mail or password');
    }
    await attempt.succeed();
    return found;
  });
  if (user.two_factor.enabled) {
    return { mfa: { mfa_token: await ids.signer.mintMfa(user.user_id, user.session_epoch), methods: ['totp', 'recovery_code'] } };
  }
  return mintSessionFor(ids, ctx, user);
}

/**
 * POST /auth/session/2fa: redeems an mfa_token once. The code is tried as a TOTP of a step later
 * than the last one accepted (RFC 6238 §5.2), then as an unused recovery code (consumed).
 * 401 expired, invalid or already redeemed token, or wrong code (the token then stays usable);
 * 429 + Retry-After while the account's second factor or the source is backed off. The source's
 * slot is reserved before the token is read and the account's before the code is checked
 * (brute-force.ts `attempt`), so parallel codes cannot outrun the count.
 */
export async function secondFactorLogin(ids: IdentityServices, ctx: IdentityCtx, input: { mfa_token: string; code: string }): Promise<SessionResult> {
  const user = await ids.guard.attempt([['ip', sourceKey(ctx.actor.ip)]], async (attempt) => {
    const claims = await ids.signer.verifyMfa(input.mfa_token);
    const found = claims ? await ctx.engine.stores.users.get(claims.userId) : null;
    if (!claims || !found?.is_active || found.session_epoch !== claims.epoch || !found.two_factor.enabled) {
      await attempt.fail();
      throw new UnauthorizedError('The sign-in challenge expired or is invalid');
    }
    await attempt.admit('second_factor', found.user_id);
    const tokens = ctx.engine.stores.revokedTokens;
    const redeemed = await tokens.consume({
      token_id: claims.tokenId,
      kind: 'mfa',
      user_id: found.user_id,
      expires_at: claims.expiresAt.toISOString(),
      created_at: isoNow(ctx),
    });
    // A token already redeemed is not a guess: the attempt is released uncounted.
    if (!redeemed) throw new UnauthorizedError('The sign-in challenge expired or is invalid');
    if (!(await consumeSecondFactor(ctx, found, input.code))) {
      await tokens.release(claims.tokenId);
      await attempt.fail();
      throw new UnauthorizedError('Invalid code');
    }
    await attempt.succeed();
    return found;
  });
  return mintSessionFor(ids, ctx, user);
}

async function consumeSecondFactor(ctx: IdentityCtx, user: UserDoc, code: string): Promise<boolean> {
  const users = ctx.engine.stores.users;
  const secret = user.two_factor.secret ? ctx.engine.stores.box.open(user.two_factor.secret) : null;
  const step = secret ? matchTotpStep(code, secret, ctx.engine.now()) : null;
  if (step !== null) return users.claimTotpStep(user.user_id, step, isoNow(ctx));
  return users.consumeRecoveryCode(user.user_id, sha256Hex(code.trim().toLowerCase()), user.two_factor.recovery_codes, isoNow(ctx));
}

/**
 * POST /auth/logout: revokes the calling session by its `jti` until the token's own expiry, on
 * the store (every replica refuses it from the next request), and the route clears the cookie.
 * Other sessions of the account are untouched. `token` is the cookie the caller authenticated
 * with; a token that does not verify is ignored.
 */
export async function logout(ids: IdentityServices, ctx: IdentityCtx, token: string | null): Promise<void> {
  const session = token ? await ids.signer.verifySession(token) : null;
  if (!session) return;
  await ctx.engine.stores.revokedTokens.revoke({
    token_id: session.sessionId,
    kind: 'session',
    user_id: session.userId,
    expires_at: session.expiresAt.toISOString(),
    created_at: isoNow(ctx),
  });
}
