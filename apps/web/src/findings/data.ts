import { experimental_streamedQuery as streamedQuery, queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api } from '../api/client';
import { STATUSES, type FindingRecord, type NamespaceEntry, type FindingRow, type FindingStatus, type Severity, type TriageBody } from '../api/types';

/**
 * The workbench filters, all held in the URL (`/findings?namespace=a&namespace=b&status=…`):
 * `namespace` repeats for several; a missing `status` means open (the triage queue) and
 * `status=any` means every status.
 */
export interface FindingFilters {
  namespaces?: readonly string[];
  status?: FindingStatus;
  severity?: Severity;
  rule_id?: string;
  /** Resource type: the address's type segment (e.g. `aws_s3_bucket`), filtered here. */
  type?: string;
  /** Free text over title, rule id, address and namespaces, filtered here. */
  q?: string;
}

/** The status shown when the URL names none: the findings still to triage. */
export const DEFAULT_STATUS: FindingStatus = 'open';
/** The URL value for "every status". */
export const ANY_STATUS = 'any';
/** Single-valued URL filters (the namespace filter repeats `namespace`). */
export const FILTER_KEYS = ['status', 'severity', 'rule_id', 'type', 'q'] as const;

/** Filters from a URL query string (unknown parameters and values ignored). */
export function filtersFrom(params: URLSearchParams): FindingFilters {
  const f: FindingFilters = {};
  const namespaces = [...new Set(params.getAll('namespace').filter(Boolean))];
  if (namespaces.length) f.namespaces = namespaces;
  const status = params.get('status') ?? DEFAULT_STATUS;
  if ((STATUSES as readonly string[]).includes(status)) f.status = status as FindingStatus;
  for (const k of ['severity', 'rule_id', 'type', 'q'] as const) {
    const v = params.get(k);
    if (v) (f as Record<string, string>)[k] = v;
  }
  return f;
}

/** The GET /findings query string of the server-side filters, with each record's namespaces. */
function findingsQueryString(f: FindingFilters, limit: number, offset: number): string {
  const q = new URLSearchParams();
  for (const ns of f.namespaces ?? []) q.append('namespace', ns);
  // One namespace: the findings of its latest run; those it no longer has are listed apart
  // (no-longer-detected.tsx; docs/decisions.md "Runs compared").
  if (f.namespaces?.length === 1) q.set('detection', 'current');
  if (f.status) q.set('status', f.status);
  if (f.severity) q.set('severity', f.severity);
  if (f.rule_id) q.set('rule_id', f.rule_id);
  q.set('include_namespaces', 'true');
  q.set('limit', String(limit));
  q.set('offset', String(offset));
  return `?${q.toString()}`;
}

/** Rows in the first request: small, so the table can show it at once; later pages are bigger. */
export const FIRST_PAGE = 500;
const PAGE = 1000;
/** Later pages are handed on in batches of at least this many rows: every batch re-sorts the whole table, so few batches keep the page responsive while the rest loads. */
const BATCH = 10_000;

/** Resolves when the browser is idle (after the first page has rendered), at most `ms` later. */
function idle(ms: number): Promise<void> {
  return new Promise((resolve) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(() => resolve(), { timeout: ms }) : setTimeout(resolve, 0)));
}

/**
 * The findings matching the server-side filters: GET /findings with `limit` and `offset`
 * (analysis-api.md), first {@link FIRST_PAGE} rows (yielded at once), then pages of 1000 until
 * a short page (requested once the first page has rendered), yielded in batches of
 * {@link BATCH} rows and a last partial batch. Throws
 * ApiError as the client does; stops when `signal` aborts.
 */
async function* findingBatches(f: FindingFilters, signal: AbortSignal): AsyncGenerator<FindingRow[]> {
  let batch: FindingRow[] = [];
  for (let offset = 0, limit = FIRST_PAGE; ; offset += limit, limit = PAGE) {
    const page = await api.get<{ findings: FindingRow[] }>(`/findings${findingsQueryString(f, limit, offset)}`, signal);
    batch = batch.concat(page.findings);
    const last = page.findings.length < limit;
    if (offset === 0 || last || batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
    if (last) return;
    if (offset === 0) await idle(500); // let the first page render before asking for more
  }
}

/** The resource type of an address (`module.x.aws_s3_bucket.logs[0]` → `aws_s3_bucket`): the segment before the name. */
export function resourceType(address: string): string {
  const segments = address.split('.');
  return segments.length >= 2 ? segments[segments.length - 2] : address;
}

/** Applies the client-side filters (type, text). */
export function localFilter(rows: FindingRow[], f: FindingFilters): FindingRow[] {
  const q = f.q?.toLowerCase();
  return rows.filter(
    (r) =>
      (!f.type || resourceType(r.resource_address) === f.type) &&
      (!q || `${r.title} ${r.rule_id} ${r.resource_address} ${r.namespaces.join(' ')}`.toLowerCase().includes(q)),
  );
}

export const findingsKey = (f: FindingFilters) => ['findings', (f.namespaces ?? []).join('\u0000'), f.status ?? '', f.severity ?? '', f.rule_id ?? ''];

/**
 * The findings list as a streamed query: `data` holds the first page as soon as it arrives
 * (status `success`) and grows as later pages land; `fetchStatus` stays `fetching` until the
 * last page. A refetch keeps the shown rows and swaps in the new list once it is complete.
 */
function findingsQuery(f: FindingFilters) {
  return queryOptions({
    queryKey: findingsKey(f),
    queryFn: streamedQuery<FindingRow[], FindingRow[]>({
      streamFn: ({ signal }) => findingBatches(f, signal),
      reducer: (rows, page) => rows.concat(page),
      initialValue: [],
      refetchMode: 'replace',
    }),
    staleTime: 10_000,
  });
}

export function useFindings(f: FindingFilters) {
  return useQuery(findingsQuery(f));
}

/**
 * Starts loading `/findings?…` (the URL's filters) before the session check and the page's
 * code have arrived, so the first page is on its way in parallel; the page's useFindings then
 * joins the same request. A failure (e.g. 401 before sign-in) is cached and retried on mount.
 */
export function prefetchFindings(client: QueryClient, params: URLSearchParams): void {
  void client.prefetchQuery(findingsQuery(filtersFrom(params)));
}

export const findingId = (f: Pick<FindingRow, 'resource_hash' | 'rule_id'>) => `${f.resource_hash}/${f.rule_id}`;

/** A triage target: the pair, and (for Undo) its status and note before the change. */
export type TriageTarget = Pick<FindingRow, 'resource_hash' | 'rule_id'> & Partial<Pick<FindingRow, 'status' | 'note' | 'title'>>;

/**
 * PATCH /findings/{resource_hash}/{rule_id} for one or more findings (bulk triage sends one
 * request per finding, four at a time; `expires_at` time-boxes a suppression); the cached lists
 * are updated in place (rows keep their place, so the next finding stays next) and the
 * summaries, the finding's own record and its history are refetched.
 */
export function useTriage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ targets, body }: { targets: TriageTarget[]; body: TriageBody }) => {
      const updated: (FindingRow | Omit<FindingRow, 'namespaces'>)[] = [];
      const queue = [...targets];
      const worker = async () => {
        for (let t = queue.shift(); t; t = queue.shift()) {
          updated.push(
            await api.patch<Omit<FindingRow, 'namespaces'>>(`/findings/${encodeURIComponent(t.resource_hash)}/${encodeURIComponent(t.rule_id)}`, body),
          );
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return updated;
    },
    onSuccess: (updated) => {
      const byId = new Map(updated.map((u) => [findingId(u), u]));
      // The workbench lists (arrays of rows) in place; other views under 'findings' (counts, run comparisons) refetch.
      client.setQueriesData<FindingRow[]>({ queryKey: ['findings'], predicate: (q) => Array.isArray(q.state.data) }, (rows) =>
        rows?.map((r) => {
          const u = byId.get(findingId(r));
          return u ? { ...r, ...u } : r;
        }),
      );
      void client.invalidateQueries({ queryKey: ['findings'], predicate: (q) => !Array.isArray(q.state.data) });
      for (const u of updated) void client.invalidateQueries({ queryKey: ['finding', u.resource_hash, u.rule_id] });
      void client.invalidateQueries({ queryKey: ['summary'] });
      void client.invalidateQueries({ queryKey: ['namespace-risk'] });
      void client.invalidateQueries({ queryKey: ['feedback'] });
    },
  });
}

/** GET /findings/{resource_hash}/{rule_id}: one finding with its namespaces and suppression expiry (a finding's own page). */
export function useFindingRecord(key: { resource_hash: string; rule_id: string } | null) {
  return useQuery({
    queryKey: ['finding', key?.resource_hash ?? '', key?.rule_id ?? ''],
    queryFn: () => api.get<FindingRecord>(`/findings/${encodeURIComponent(key!.resource_hash)}/${encodeURIComponent(key!.rule_id)}`),
    enabled: key !== null,
    retry: false,
  });
}

/** GET /namespaces: the org's namespaces, newest first (the namespace picker's choices). */
export function useNamespaces() {
  return useQuery({ queryKey: ['namespaces'], queryFn: () => api.get<NamespaceEntry[]>('/namespaces'), staleTime: 30_000 });
}

/** The namespace a row is shown (and linked) under: the first of its namespaces the filter names, else its first; null when none. */
export function rowNamespace(row: Pick<FindingRow, 'namespaces'>, preferred: readonly string[] = []): string | null {
  return row.namespaces.find((n) => preferred.includes(n)) ?? row.namespaces[0] ?? null;
}

/** The placeholder namespace segment of a finding's URL when its resource is in no namespace. */
export const NO_NAMESPACE = '-';

/** A finding's own page: `/findings/{namespace}/{resource_hash}/{rule_id}` (the list's filters ride along as the query). */
export function findingPath(namespace: string | null, f: Pick<FindingRow, 'resource_hash' | 'rule_id'>): string {
  return `/findings/${encodeURIComponent(namespace ?? NO_NAMESPACE)}/${encodeURIComponent(f.resource_hash)}/${encodeURIComponent(f.rule_id)}`;
}
