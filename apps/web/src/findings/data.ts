import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
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

const PAGE = 1000;

/** Every finding matching the server-side filters: GET /findings pages of 1000 (analysis-api.md). */
async function fetchAll(f: FindingFilters, signal: AbortSignal): Promise<Finding[]> {
  const all: Finding[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await api.get<{ findings: Finding[] }>(`/findings${query({ namespace: f.namespace, status: f.status, severity: f.severity, rule_id: f.rule_id, limit: PAGE, offset })}`, signal);
    all.push(...page.findings);
    if (page.findings.length < PAGE) return all;
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
  return rows.filter((r) => (!f.type || resourceType(r.resource_address) === f.type)
    && (!q || `${r.title} ${r.rule_id} ${r.resource_address}`.toLowerCase().includes(q)));
}

export const findingsKey = (f: FindingFilters) => ['findings', f.namespace ?? '', f.status ?? '', f.severity ?? '', f.rule_id ?? ''];

export function useFindings(f: FindingFilters) {
  return useQuery({ queryKey: findingsKey(f), queryFn: ({ signal }) => fetchAll(f, signal), staleTime: 10_000 });
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
