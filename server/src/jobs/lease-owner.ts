import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * Job-runner identities (DESIGN.md "Scale-out"). A lease owner reads
 * `runner:<host>:<pid>:<uuid>`, so a runner starting on shared storage can tell a lease left by
 * a dead process of its own host (released at once) from one held by a live replica (left to
 * expire). Runners of this process register while they run.
 */
const LIVE_IN_THIS_PROCESS = new Set<string>();

/** A new owner id for a runner of this process. */
export function newLeaseOwner(): string {
  return `runner:${hostname()}:${process.pid}:${randomUUID()}`;
}

/** Marks a runner of this process as running (true) or stopped (false). */
export function markOwnerLive(owner: string, live: boolean): void {
  if (live) LIVE_IN_THIS_PROCESS.add(owner);
  else LIVE_IN_THIS_PROCESS.delete(owner);
}

/**
 * Whether the runner that holds a lease is certainly gone: an owner id of the older
 * `runner-<uuid>` form (single-process runners), a stopped runner of this process, or a process
 * of this host that no longer exists. A runner of another host is never judged dead here (its
 * lease expires instead).
 */
export function leaseOwnerIsDead(owner: string): boolean {
  const [tag, host, pidText] = owner.split(':');
  if (tag !== 'runner' || !host || !pidText) return true;
  if (host !== hostname()) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return !LIVE_IN_THIS_PROCESS.has(owner);
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
