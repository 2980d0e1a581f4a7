import { randomBytes } from 'node:crypto';
import { authenticator } from 'otplib';

const ISSUER = 'Planwarden';

/** A new base32 TOTP secret (RFC 6238, otplib defaults: SHA-1, 6 digits, 30 s). */
export function newTotpSecret(): string {
  return authenticator.generateSecret();
}

/** The otpauth:// provisioning URI for authenticator apps. */
export function provisioningUri(email: string, secret: string): string {
  return authenticator.keyuri(email, ISSUER, secret);
}

/** Whether `code` is the TOTP of `secret` at `now` (one step of drift either way). */
export function checkTotp(code: string, secret: string, now: Date): boolean {
  const clock = authenticator.clone({ epoch: now.getTime(), window: 1 });
  try {
    return clock.check(code.replace(/\s+/g, ''), secret);
  } catch {
    return false;
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
