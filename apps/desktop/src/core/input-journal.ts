import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ParsedBridgeRequest } from './bridge-schema';
import type { BridgeResponse } from './bridge-schema';

/**
 * The raw inputs the local user ingested or analysed, per namespace: the server keeps units,
 * not the input they came from, and a push re-ingests the input on the team server so the team
 * gets the very same units (same hashes). `<dir>/index.json` lists them; `<dir>/<id>.txt`
 * holds each input. `analyzer` null = auto-routed.
 */
export interface JournalEntry {
  readonly id: string;
  readonly namespace: string;
  readonly analyzer: string | null;
  readonly recorded_at: string;
}

const IndexSchema = z.array(z.object({ id: z.string(), namespace: z.string(), analyzer: z.string().nullable(), recorded_at: z.string() }));

/** The ingest and analyze routes of analysis-api.md, as (namespace, analyzer, where the raw input is). */
function inputOf(request: ParsedBridgeRequest): { namespace: string; analyzer: string | null; raw: string } | null {
  if (request.method !== 'POST' || request.body === null) return null;
  const path = request.path.split('?')[0];
  const m = /^\/api\/v1\/([^/]+)\/([^/]+)(?:\/([^/]+))?$/.exec(path);
  if (!m) return null;
  const [a, b, c] = [m[1], m[2], m[3]].map((s) => (s === undefined ? undefined : decodeURIComponent(s)));
  const jsonRaw = () => {
    try {
      const parsed = JSON.parse(request.body!) as { raw_input?: unknown };
      return typeof parsed.raw_input === 'string' ? parsed.raw_input : null;
    } catch {
      return null;
    }
  };
  let found: { namespace: string; analyzer: string | null; raw: string | null } | null = null;
  if (b === 'ingest' && c === 'auto') found = { namespace: a!, analyzer: null, raw: request.body };
  else if (c === 'ingest') found = { namespace: b!, analyzer: a!, raw: request.body };
  else if (b === 'analyze' && c === 'auto') found = { namespace: a!, analyzer: null, raw: jsonRaw() };
  else if (c === 'analyze') found = { namespace: b!, analyzer: a!, raw: jsonRaw() };
  return found && found.raw !== null ? { ...found, raw: found.raw } : null;
}

export class InputJournal {
  constructor(
    private readonly dir: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The bridge observer: records the raw input of an ingest or analyze request the local API
   * accepted (200, 201 or 202); anything else is ignored. The same input twice in one
   * namespace is one entry.
   */
  observe = (request: ParsedBridgeRequest, response: BridgeResponse): void => {
    if (![200, 201, 202].includes(response.status)) return;
    const input = inputOf(request);
    if (input) this.record(input.namespace, input.analyzer, input.raw);
  };

  /** Stores one input (idempotent per namespace, analyzer and content). */
  record(namespace: string, analyzer: string | null, raw: string): JournalEntry {
    const id = createHash('sha256')
      .update(`${namespace}\0${analyzer ?? ''}\0${raw}`)
      .digest('hex');
    const index = this.index();
    const existing = index.find((e) => e.id === id);
    if (existing) return existing;
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(join(this.dir, `${id}.txt`), raw, 'utf8');
    const entry: JournalEntry = { id, namespace, analyzer, recorded_at: this.now().toISOString() };
    this.writeIndex([...index, entry]);
    return entry;
  }

  /** The entries of `namespace`, oldest first. */
  list(namespace: string): JournalEntry[] {
    return this.index().filter((e) => e.namespace === namespace);
  }

  /** The raw input of an entry. */
  raw(entry: JournalEntry): string {
    return readFileSync(join(this.dir, `${entry.id}.txt`), 'utf8');
  }

  private index(): JournalEntry[] {
    const file = join(this.dir, 'index.json');
    if (!existsSync(file)) return [];
    const parsed = IndexSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : [];
  }

  private writeIndex(entries: JournalEntry[]): void {
    const file = join(this.dir, 'index.json');
    writeFileSync(`${file}.tmp`, JSON.stringify(entries));
    renameSync(`${file}.tmp`, file);
  }
}
