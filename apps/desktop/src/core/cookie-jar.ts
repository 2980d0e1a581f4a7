/**
 * The bridge's cookie jar: the main process keeps the cookies the local API sets (the
 * dashboard's httpOnly session cookie when someone signs in) and sends them back, as a browser
 * would; the renderer never sees them. One origin (the local API), so only name, value and
 * expiry matter (RFC 6265 §5.3: Max-Age wins over Expires; a past expiry deletes).
 */
export interface ParsedCookie {
  readonly name: string;
  readonly value: string;
  readonly maxAge?: number;
  readonly expires?: Date;
}

export class CookieJar {
  private readonly cookies = new Map<string, { value: string; expiresAt: number | null }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Stores the cookies of one response (light-my-request's parsed `res.cookies`). */
  store(cookies: readonly ParsedCookie[]): void {
    for (const c of cookies) {
      const expiresAt = c.maxAge !== undefined ? this.now() + c.maxAge * 1000 : c.expires ? c.expires.getTime() : null;
      if (expiresAt !== null && expiresAt <= this.now()) this.cookies.delete(c.name);
      else this.cookies.set(c.name, { value: c.value, expiresAt });
    }
  }

  /** The live cookies as `{name: value}` (expired ones dropped). */
  current(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, c] of this.cookies) {
      if (c.expiresAt !== null && c.expiresAt <= this.now()) this.cookies.delete(name);
      else out[name] = c.value;
    }
    return out;
  }

  clear(): void {
    this.cookies.clear();
  }
}
