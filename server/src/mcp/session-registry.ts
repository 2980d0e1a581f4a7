/**
 * Admission of MCP sessions (docs/mcp.md "Transports and paths"): the sessions this process
 * holds, capped in all, per org and per principal, so one tenant cannot open every slot and
 * lock the others out (before: one org's key opened 999 sessions and every other org got 503
 * for the 30-minute idle timeout). Pure bookkeeping: endpoint.ts owns the transports.
 */

/** Config `mcp` (server/src/config/config.ts). */
export interface SessionLimits {
  readonly maxSessions: number;
  readonly maxPerOrg: number;
  readonly maxPerPrincipal: number;
}

/** What the registry needs of a session. */
export interface TrackedSession {
  /** The principal that opened it (endpoint.ts `ownerOf`). */
  readonly owner: string;
  /** Its org (or the account when the principal has none). */
  readonly org: string;
  /** Requests (and event streams) in flight: a session with any is active, never evicted. */
  open: number;
  /** Order of last use (a counter, so ties cannot reorder): the lowest idle one goes first. */
  used: number;
}

/** A refused admission: the HTTP status and the message. */
export interface Refusal {
  readonly status: 429 | 503;
  readonly message: string;
}

let clock = 0;

/** Marks `session` as used now (it moves to the back of the eviction order). */
export function touch(session: TrackedSession): void {
  clock += 1;
  session.used = clock;
}

/**
 * The live sessions and the caps. `admit` is synchronous, so parallel initializations are
 * counted one by one (a session is counted from admission, before its handshake completes).
 */
export class SessionRegistry<S extends TrackedSession> {
  private readonly live = new Set<S>();

  /** `evict` closes a session chosen for eviction; the registry has already forgotten it. */
  constructor(
    private readonly limits: () => SessionLimits,
    private readonly evict: (session: S) => void,
  ) {}

  get size(): number {
    return this.live.size;
  }

  /**
   * Counts `session` in, making room first: at the principal's cap its own oldest idle session
   * is evicted, at the org's cap the org's oldest idle one, and when the process is full the
   * oldest idle session of the org holding the most. The org cap is kept below the total, so
   * one org alone never fills the process. Returns null when admitted, else why not: 429 when
   * the principal's or org's sessions are all active, 503 when every session in the process is.
   */
  admit(session: S): Refusal | null {
    const { maxSessions, maxPerOrg, maxPerPrincipal } = this.effective();
    const mine = (s: S) => s.owner === session.owner;
    const ours = (s: S) => s.org === session.org;
    if (this.count(mine) >= maxPerPrincipal && !this.evictOldestIdle(mine)) {
      return { status: 429, message: `Too many open MCP sessions for this credential (at most ${maxPerPrincipal}); close one or let one go idle` };
    }
    if (this.count(ours) >= maxPerOrg && !this.evictOldestIdle(ours)) {
      return { status: 429, message: `Too many open MCP sessions for this organization (at most ${maxPerOrg}); close one or let one go idle` };
    }
    if (this.live.size >= maxSessions && !this.evictFromLargestOrg()) {
      return { status: 503, message: 'Too many open MCP sessions' };
    }
    touch(session);
    this.live.add(session);
    return null;
  }

  /** Forgets `session` (closed, or its handshake failed). */
  remove(session: S): void {
    this.live.delete(session);
  }

  /** Sessions matching `select`. */
  sessions(select: (s: S) => boolean = () => true): S[] {
    return [...this.live].filter(select);
  }

  /** The caps as applied: an org below the total, a principal within its org. */
  private effective(): SessionLimits {
    const l = this.limits();
    const maxPerOrg = Math.max(1, Math.min(l.maxPerOrg, l.maxSessions - 1));
    return { maxSessions: l.maxSessions, maxPerOrg, maxPerPrincipal: Math.min(l.maxPerPrincipal, maxPerOrg) };
  }

  private count(select: (s: S) => boolean): number {
    let n = 0;
    for (const s of this.live) if (select(s)) n += 1;
    return n;
  }

  private evictOldestIdle(select: (s: S) => boolean): boolean {
    let oldest: S | null = null;
    for (const s of this.live) if (select(s) && s.open === 0 && (oldest === null || s.used < oldest.used)) oldest = s;
    if (oldest === null) return false;
    this.live.delete(oldest);
    this.evict(oldest);
    return true;
  }

  /** The process is full: the org holding the most sessions (with an idle one) gives one up. */
  private evictFromLargestOrg(): boolean {
    const idleByOrg = new Map<string, number>();
    const sizeByOrg = new Map<string, number>();
    for (const s of this.live) {
      sizeByOrg.set(s.org, (sizeByOrg.get(s.org) ?? 0) + 1);
      if (s.open === 0) idleByOrg.set(s.org, (idleByOrg.get(s.org) ?? 0) + 1);
    }
    const candidates = [...idleByOrg.keys()].sort((a, b) => (sizeByOrg.get(b) ?? 0) - (sizeByOrg.get(a) ?? 0));
    return candidates.length > 0 && this.evictOldestIdle((s) => s.org === candidates[0]);
  }
}
