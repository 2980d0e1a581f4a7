import { randomBytes } from 'node:crypto';
import { authenticator } from 'otplib';

const ISSUER = 'Planwarden';
/** RFC 6238 time step in seconds (otplib's default). */
const STEP_SECONDS = 30;

/** A new base32 TOTP secret (RFC 6238, otplib defaults: SHA-1, 6 digits, 30 s). */
export function newTotpSecret(): string {
  return authenticator.generateSecret();
}

/** The otpauth:// provisioning URI for authenticator apps. */
export function provisioningUri(email: string, secret: string): string {
  return authenticator.keyuri(email, ISSUER, secret);
}

/**
 * The RFC 6238 time step (Unix seconds / 30) whose TOTP of `secret` is `code`, allowing one
 * step of drift either way around `now`; null when the code matches none. Callers refuse a step
 * at or before the last one accepted (RFC 6238 §5.2: each code is accepted once).
 */
export function matchTotpStep(code: string, secret: string, now: Date): number | null {
  const clock = authenticator.clone({ epoch: now.getTime(), window: 1 });
  try {
    const delta = clock.checkDelta(code.replace(/\s+/g, ''), secret);
    return delta === null ? null : Math.floor(now.getTime() / 1000 / STEP_SECONDS) + delta;
  } catch {
    return null;
  }
}

/** The current TOTP of `secret` at `now` (tests and tooling). */
export function totpAt(secret: string, now: Date): string {
  return authenticator.clone({ epoch: now.getTime() }).generate(secret);
}

/** 10 one-time recovery codes (`xxxxx-xxxxx`, hex). */
export function newRecoveryCodes(count = 10): string[] {
  return Array.from({ length: count }, () => {
    const hex = randomBytes(5).toString('hex');
    return `${hex.slice(0, 5)}-${hex.slice(5)}`;
  });
}
