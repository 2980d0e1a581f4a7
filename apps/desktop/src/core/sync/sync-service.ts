import { randomUUID } from 'node:crypto';
import type { InputJournal } from '../input-journal';
import { SyncRefusedError, TeamUnreachableError, type ApiClient } from './api-client';
import { pullFromTeam, type PullCounts } from './pull';
import { pushNamespace, type PushCounts } from './push';
import type { SyncState, SyncLogEntry } from './sync-state';

/** Where the team org is: its server's URL and a client carrying the service key (from the keychain). */
export interface TeamTarget {
  readonly url: string;
  readonly api: ApiClient;
}

export type PushResult = { readonly status: 'done'; readonly namespaces: readonly PushCounts[] } | { readonly status: 'queued'; readonly reason: string };

export interface SyncServiceOptions {
  readonly local: ApiClient;
  /** The configured team org, or null when settings have none (push/pull then refuse). */
  readonly team: () => TeamTarget | null;
  readonly journal: InputJournal;
  readonly state: SyncState;
  readonly now?: () => Date;
}

/**
 * Push, pull, the offline queue and the sync log (docs/decisions.md "Desktop sync"). A push the
 * team server cannot take now (unreachable, 502/503/504) is queued and `flush` runs it when the
 * server answers (the main process calls `flush` on a timer and on "Sync now"). Pushes are
 * idempotent, so a queued push that half ran before is simply run again.
 */
export class SyncService {
  private readonly now: () => Date;
  private running: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: SyncServiceOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** The sync log, newest first. */
  log(): SyncLogEntry[] {
    return [...this.options.state.log].reverse();
  }

  /** Namespaces waiting in the queue. */
  queued(): string[][] {
    return this.options.state.queue.map((q) => [...q.namespaces]);
  }

  /**
   * Pushes `namespaces` (in order). Unreachable team server: the push is queued
   * (`{status: 'queued'}`). Refused by the team server: SyncRefusedError (logged). No team
   * configured: Error.
   */
  push(namespaces: readonly string[]): Promise<PushResult> {
    return this.serial(async () => {
      const target = this.target();
      try {
        return { status: 'done', namespaces: await this.pushNow(target, namespaces) } as const;
      } catch (error) {
        if (!(error instanceof TeamUnreachableError)) throw error;
        this.options.state.enqueue({ id: randomUUID(), namespaces: [...namespaces], queued_at: this.now().toISOString() });
        this.write(target, 'queue', namespaces.join(', '), 'push', 'queued', error.message);
        return { status: 'queued', reason: error.message } as const;
      }
    });
  }

  /** Runs the queued pushes, oldest first; stops at the first one the server still cannot take. Returns how many ran. */
  flush(): Promise<number> {
    return this.serial(async () => {
      const target = this.target();
      let ran = 0;
      for (const item of [...this.options.state.queue]) {
        try {
          await this.pushNow(target, item.namespaces);
        } catch (error) {
          if (error instanceof TeamUnreachableError) return ran;
          if (!(error instanceof SyncRefusedError)) throw error;
        }
        this.options.state.dequeue(item.id);
        ran += 1;
      }
      return ran;
    });
  }

  /** Pulls custom rules and triage statuses from the team org. Throws TeamUnreachableError or SyncRefusedError (logged). */
  pull(): Promise<PullCounts> {
    return this.serial(async () => {
      const target = this.target();
      try {
        const counts = await pullFromTeam({ local: this.options.local, team: target.api, state: this.options.state });
        this.write(
          target,
          'pull',
          null,
          'rules',
          'done',
          `${count(counts.categories_created, 'category', 'categories')} and ${count(counts.rules_created, 'rule')} created, ${count(counts.rules_updated, 'rule')} updated`,
        );
        this.write(target, 'pull', null, 'triage', 'done', describeMerge(counts.triage));
        return counts;
      } catch (error) {
        this.write(target, 'pull', null, 'pull', 'failed', error instanceof Error ? error.message : String(error));
        throw error;
      }
    });
  }

  private async pushNow(target: TeamTarget, namespaces: readonly string[]): Promise<PushCounts[]> {
    const results: PushCounts[] = [];
    for (const namespace of namespaces) {
      try {
        const c = await pushNamespace({ namespace, local: this.options.local, team: target.api, journal: this.options.journal, state: this.options.state });
        this.write(target, 'push', namespace, 'ingest', 'done', `${count(c.inputs, 'raw input')} ingested`);
        this.write(
          target,
          'push',
          namespace,
          'analysis',
          c.analyses_submitted > 0 ? 'done' : 'skipped',
          `${count(c.analyses_submitted, 'analysis', 'analyses')} submitted, ${c.analyses_skipped} already analysed on the team server`,
        );
        this.write(target, 'push', namespace, 'triage', 'done', describeMerge(c.triage));
        results.push(c);
      } catch (error) {
        if (!(error instanceof TeamUnreachableError))
          this.write(target, 'push', namespace, 'push', 'failed', error instanceof Error ? error.message : String(error));
        throw error;
      }
    }
    return results;
  }

  private target(): TeamTarget {
    const target = this.options.team();
    if (!target) throw new Error('No team server is configured: set its URL and a service key in Settings › Sync');
    return target;
  }

  private write(
    target: TeamTarget,
    direction: SyncLogEntry['direction'],
    namespace: string | null,
    what: string,
    outcome: SyncLogEntry['outcome'],
    detail: string,
  ): void {
    this.options.state.append({ at: this.now().toISOString(), direction, target: target.url, namespace, what, outcome, detail });
  }

  /** One sync step at a time (a timer's flush never overlaps a user's push). */
  private serial<T>(step: () => Promise<T>): Promise<T> {
    const next = this.running.then(step, step);
    this.running = next.catch(() => undefined);
    return next;
  }
}

function describeMerge(c: { patched: number; conflicts: number; kept_in_history: number }): string {
  if (c.patched === 0) return 'No triage decision to apply';
  const conflicts =
    c.conflicts === 0
      ? ''
      : `, ${count(c.conflicts, 'conflict')} resolved (later decision wins), ${count(c.kept_in_history, 'superseded decision')} kept in the feedback history`;
  return `${count(c.patched, 'triage decision')} applied${conflicts}`;
}

/** `1 rule`, `2 rules`, `0 analyses`: a count with its noun in the right number. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
