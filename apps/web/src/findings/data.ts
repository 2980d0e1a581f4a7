import { experimental_streamedQuery as streamedQuery, queryOptions, useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { api, query } from '../api/client';
import type { Finding, FindingStatus, Severity, UpdateFindingBody } from '../api/types';

/** The workbench filters, all held in the URL (`/findings?namespace=…&status=…`). */
export interface FindingFilters {
  namespace?: string;
  status?: FindingStatus;
  severity?: Severity;
  rule_id?: string;
  /** Resource type: the address's type segment (e.g. `aws_s3_bucket`), filtered here. */
  type?: string;
  /** Free text over title, rule id and address, filtered here. */
  q?: string;
}

export const FILTER_KEYS = ['namespace', 'status', 'severity', 'rule_id', 'type', 'q'] as const;

/** Filters from a URL query string (unknown parameters ignored). */
export function filtersFrom(params: URLSearchParams): FindingFilters {
  const f: Record<string, string> = {};
  for (const k of FILTER_KEYS) {
    const v = params.get(k);
    if (v) f[k] = v;
  }
  return f as FindingFilters;
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
async function* findingBatches(f: FindingFilters, signal: AbortSignal): AsyncGenerator<Finding[]> {
  let batch: Finding[] = [];
  for (let offset = 0, limit = FIRST_PAGE; ; offset += limit, limit = PAGE) {
    const page = await api.get<{ findings: Finding[] }>(
      `/findings${query({ namespace: f.namespace, status: f.status, severity: f.severity, rule_id: f.rule_id, limit, offset })}`,
      signal,
    );
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
export function localFilter(rows: Finding[], f: FindingFilters): Finding[] {
  const q = f.q?.toLowerCase();
  return rows.filter(
    (r) => (!f.type || resourceType(r.resource_address) === f.type) && (!q || `${r.title} ${r.rule_id} ${r.resource_address}`.toLowerCase().includes(q)),
  );
}

export const findingsKey = (f: FindingFilters) => ['findings', f.namespace ?? '', f.status ?? '', f.severity ?? '', f.rule_id ?? ''];

/**
 * The findings list as a streamed query: `data` holds the first page as soon as it arrives
 * (status `success`) and grows as later pages land; `fetchStatus` stays `fetching` until the
 * last page. A refetch keeps the shown rows and swaps in the new list once it is complete.
 */
function findingsQuery(f: FindingFilters) {
  return queryOptions({
    queryKey: findingsKey(f),
    queryFn: streamedQuery<Finding[], Finding[]>({
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

export const findingId = (f: Pick<Finding, 'resource_hash' | 'rule_id'>) => `${f.resource_hash}/${f.rule_id}`;

/**
 * PATCH /findings/{resource_hash}/{rule_id} for one or more findings (bulk triage sends one
 * request per finding, four at a time); the cached lists are updated in place and refetched.
 */
export function useTriage() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ targets, body }: { targets: Pick<Finding, 'resource_hash' | 'rule_id'>[]; body: UpdateFindingBody }) => {
      const updated: Finding[] = [];
      const queue = [...targets];
      const worker = async () => {
        for (let t = queue.shift(); t; t = queue.shift()) {
          updated.push(await api.patch<Finding>(`/findings/${encodeURIComponent(t.resource_hash)}/${encodeURIComponent(t.rule_id)}`, body));
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
      return updated;
    },
    onSuccess: (updated) => {
      const byId = new Map(updated.map((u) => [findingId(u), u]));
      client.setQueriesData<Finding[]>({ queryKey: ['findings'] }, (rows) => rows?.map((r) => byId.get(findingId(r)) ?? r));
      void client.invalidateQueries({ queryKey: ['summary'] });
      void client.invalidateQueries({ queryKey: ['feedback'] });
    },
  });
}
