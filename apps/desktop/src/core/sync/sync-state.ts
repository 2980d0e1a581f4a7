import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';

/** How many sync-log lines are kept (oldest dropped first). */
export const SYNC_LOG_LIMIT = 1000;

const LogEntrySchema = z.object({
  at: z.string(),
  /** push, pull, or queue (a push parked while the team server was unreachable). */
  direction: z.enum(['push', 'pull', 'queue']),
  /** The team server's URL. */
  target: z.string(),
  namespace: z.string().nullable(),
  /** What moved: ingest, analysis, triage, feedback, rule, category, or the push as a whole. */
  what: z.string(),
  outcome: z.enum(['done', 'skipped', 'queued', 'failed']),
  detail: z.string(),
});
export type SyncLogEntry = z.infer<typeof LogEntrySchema>;

const StateSchema = z.object({
  queue: z.array(z.object({ id: z.string(), namespaces: z.array(z.string()), queued_at: z.string() })).default([]),
  log: z.array(LogEntrySchema).default([]),
  /** Per `${resource_hash} ${rule_id}`: each side's updated_at when the pair was last in step. */
  triage: z.record(z.string(), z.object({ local: z.string().nullable(), team: z.string().nullable() })).default({}),
});
export type SyncStateData = z.infer<typeof StateSchema>;

/**
 * The sync's own small state, one JSON file under the user-data folder: the push queue, the
 * sync log, and where each triage pair stood at the last sync (what lets the sync tell "changed
 * since" from "changed on both sides"). Written atomically after every change.
 */
export class SyncState {
  private data: SyncStateData;

  constructor(private readonly file: string) {
    this.data = existsSync(file) ? StateSchema.parse(JSON.parse(readFileSync(file, 'utf8'))) : StateSchema.parse({});
  }

  get queue(): SyncStateData['queue'] {
    return this.data.queue;
  }

  /** The log, oldest first. */
  get log(): readonly SyncLogEntry[] {
    return this.data.log;
  }

  pair(hash: string, ruleId: string): { local: string | null; team: string | null } | undefined {
    return this.data.triage[`${hash} ${ruleId}`];
  }

  setPair(hash: string, ruleId: string, local: string | null, team: string | null): void {
    this.data.triage[`${hash} ${ruleId}`] = { local, team };
    this.save();
  }

  append(entry: SyncLogEntry): void {
    this.data.log.push(entry);
    if (this.data.log.length > SYNC_LOG_LIMIT) this.data.log.splice(0, this.data.log.length - SYNC_LOG_LIMIT);
    this.save();
  }

  enqueue(item: SyncStateData['queue'][number]): void {
    this.data.queue.push(item);
    this.save();
  }

  dequeue(id: string): void {
    this.data.queue = this.data.queue.filter((q) => q.id !== id);
    this.save();
  }

  private save(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(`${this.file}.tmp`, JSON.stringify(this.data));
    renameSync(`${this.file}.tmp`, this.file);
  }
}
