import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { api, query } from '../api/client';
import type { Finding, NamespaceEntry, OrgInfo, ReportLink } from '../api/types';
import { useSession } from '../auth/session';
import { ConfirmButton } from '../ui/confirm';
import { CopyButton } from '../ui/copy';
import { downloadText } from '../ui/download';
import { Field, Page, when } from '../ui/page';
import { ActionResult, Empty, ErrorBox, Loading, QueryView } from '../ui/states';

/** The public link in a markdown_light report (`[Open the full report](<url>)`), or null. */
export function publicLinkOf(markdown: string): string | null {
  return /<([^<>\s]*\/reports\/[^<>\s]+)>/.exec(markdown)?.[1] ?? null;
}

/** The rendered HTML report in a sandboxed frame: no scripts, no same-origin access; `withHidden` includes the findings triage hides. */
function HtmlReport({ namespace, withHidden }: { namespace: string; withHidden: boolean }) {
  const html = useQuery({
    queryKey: ['report', namespace, 'html', withHidden],
    queryFn: () =>
      api.get<{ html_report: string }>(`/${encodeURIComponent(namespace)}/report${query({ format: 'html', include_suppressed: withHidden || undefined })}`),
  });
  if (html.isPending) return <Loading what="Rendering the report" />;
  if (html.isError) return <ErrorBox error={html.error} retry={() => void html.refetch()} />;
  return <iframe className="report-frame" title={`Report for ${namespace}`} sandbox="" srcDoc={html.data.html_report} />;
}

/** The most records one GET /findings answers (analysis-api.md "Findings": limit 1-1000). */
const FINDINGS_PAGE_MAX = 1000;

/**
 * How many of the namespace's findings triage hides from its report (suppressed and false
 * positive: the report leaves them out unless asked), said above the report with a switch to
 * show them and a link to the findings list (GET /findings?namespace=…&status=…).
 */
function HiddenByTriage({ namespace, withHidden, onToggle }: { namespace: string; withHidden: boolean; onToggle: () => void }) {
  const count = useQuery({
    queryKey: ['findings', 'hidden-count', namespace],
    queryFn: async () => {
      const counts = await Promise.all(
        (['suppressed', 'false_positive'] as const).map(async (status) => {
          const page = await api.get<{ findings: Finding[] }>(`/findings${query({ namespace, status, limit: FINDINGS_PAGE_MAX })}`);
          return page.findings.length;
        }),
      );
      return { suppressed: counts[0]!, falsePositive: counts[1]! };
    },
  });
  if (!count.data) return null;
  const { suppressed, falsePositive } = count.data;
  const total = suppressed + falsePositive;
  const atMost = (n: number) => (n >= FINDINGS_PAGE_MAX ? `${n}+` : String(n));
  if (total === 0) return <p className="muted">Triage hides no finding of this namespace: the report shows every finding.</p>;
  return (
    <div className="hidden-by-triage" role="note" data-testid="hidden-by-triage">
      <p>
        <strong>
          {atMost(total)} finding{total === 1 ? '' : 's'} hidden by triage
        </strong>{' '}
        ({atMost(suppressed)} suppressed, {atMost(falsePositive)} false positive){withHidden ? ': shown below with their status.' : ': not in this report.'}
      </p>
      <div className="actions">
        <button type="button" onClick={onToggle} aria-pressed={withHidden}>
          {withHidden ? 'Hide them again' : 'Show them in the report'}
        </button>
        <Link to={`/findings${query({ namespace, status: suppressed > 0 ? 'suppressed' : 'false_positive' })}`}>Review them in Findings</Link>
      </div>
    </div>
  );
}

/**
 * The org's live public links (GET /orgs/{org_id}/report-links, an extension: docs/decisions.md
 * "Public report links: list and revoke") with their expiry and a Revoke button (admins only:
 * the API refuses the others). A revoked link answers 404 like an unknown one.
 */
function PublicLinks({ orgId, onRevoked }: { orgId: string; onRevoked: () => void }) {
  const base = `/orgs/${encodeURIComponent(orgId)}/report-links`;
  const client = useQueryClient();
  const links = useQuery({ queryKey: ['report-links', orgId], queryFn: () => api.get<{ links: ReportLink[] }>(base) });
  const revoke = useMutation({
    mutationFn: (id: string) => api.delete(`${base}/${encodeURIComponent(id)}`),
    onSuccess: () => {
      onRevoked();
      void client.invalidateQueries({ queryKey: ['report-links'] });
    },
  });
  return (
    <section aria-labelledby="public-links">
      <h2 id="public-links">Public links</h2>
      <QueryView query={links} isEmpty={(d) => d.links.length === 0} empty="No public link is open: every report is private to the organization.">
        {(d) => (
          <table className="list">
            <caption className="visually-hidden">Open public report links</caption>
            <thead>
              <tr>
                <th scope="col">Namespace</th>
                <th scope="col">Created</th>
                <th scope="col">By</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {d.links.map((l) => (
                <tr key={l.link_id} data-link={l.link_id}>
                  <td>{l.namespace}</td>
                  <td>{when(l.created_at)}</td>
                  <td>{l.created_by ?? 'an integration'}</td>
                  <td>{when(l.expires_at)}</td>
                  <td>
                    <ConfirmButton label="Revoke" question={`Revoke this public link to ${l.namespace}?`} danger onConfirm={() => revoke.mutate(l.link_id)}>
                      <p>Anyone opening it afterwards gets "not found". Reports themselves are not affected.</p>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      <ActionResult error={revoke.error} success={revoke.isSuccess ? 'Link revoked.' : null} />
    </section>
  );
}

/**
 * Reports: pick a namespace, read the HTML report (sandboxed frame), download Markdown or HTML
 * (GET /{namespace}/report?raw=true), and mint a public link (format markdown_light mints one
 * per analysis-api.md) with the org's link TTL.
 */
export default function Reports() {
  const session = useSession();
  const [params, setParams] = useSearchParams();
  const namespace = params.get('namespace') ?? '';
  const withHidden = params.get('hidden') === 'shown';
  const namespaces = useQuery({ queryKey: ['namespaces'], queryFn: () => api.get<NamespaceEntry[]>('/namespaces') });
  const org = useQuery({ queryKey: ['org', session.org_id], queryFn: () => api.get<OrgInfo>(`/orgs/${encodeURIComponent(session.org_id!)}`) });
  const download = useMutation({
    mutationFn: async (format: 'markdown' | 'html') => {
      const text = await api.get<string>(`/${encodeURIComponent(namespace)}/report${query({ format, raw: true })}`);
      downloadText(text, `${namespace}-report.${format === 'html' ? 'html' : 'md'}`, format === 'html' ? 'text/html' : 'text/markdown');
    },
  });
  const client = useQueryClient();
  const link = useMutation({
    onSuccess: () => client.invalidateQueries({ queryKey: ['report-links'] }),
    mutationFn: async () => {
      const res = await api.get<{ markdown_report: string }>(`/${encodeURIComponent(namespace)}/report${query({ format: 'markdown_light' })}`);
      const url = publicLinkOf(res.markdown_report);
      if (!url) throw new Error('The server did not mint a public link for this report');
      return new URL(url, window.location.origin).toString();
    },
  });
  const ttl = org.data?.report_link_ttl_hours;
  const links = session.can('admin') ? <PublicLinks orgId={session.org_id!} onRevoked={() => link.reset()} /> : null;
  return (
    <Page title="Reports">
      <QueryView query={namespaces} isEmpty={(d) => d.length === 0} empty="No namespace has been analysed yet: run an analysis first.">
        {(list) => (
          <Field label="Namespace">
            <select value={namespace} onChange={(e) => setParams(e.target.value ? { namespace: e.target.value } : {})}>
              <option value="">Choose a namespace…</option>
              {list.map((n) => (
                <option key={n.namespace} value={n.namespace}>
                  {n.namespace}
                </option>
              ))}
            </select>
          </Field>
        )}
      </QueryView>
      {namespace ? (
        <>
          <div className="actions">
            <button type="button" onClick={() => download.mutate('markdown')} disabled={download.isPending}>
              Download Markdown
            </button>
            <button type="button" onClick={() => download.mutate('html')} disabled={download.isPending}>
              Download HTML
            </button>
            {session.can('member') ? (
              <button type="button" onClick={() => link.mutate()} disabled={link.isPending}>
                Create public link
              </button>
            ) : null}
          </div>
          <ActionResult error={download.error ?? link.error} />
          {link.data ? (
            <p className="public-link" role="status">
              Public link (anyone with it can read the report{ttl ? `; expires in ${ttl} hours` : ''}):{' '}
              <a href={link.data} target="_blank" rel="noreferrer noopener" data-testid="public-link">
                {link.data}
              </a>{' '}
              <CopyButton value={link.data} />
              {session.can('admin') ? null : (
                <>
                  <br />
                  <span className="muted">It expires on its own; an admin can revoke it earlier.</span>
                </>
              )}
            </p>
          ) : null}
          <HiddenByTriage
            namespace={namespace}
            withHidden={withHidden}
            onToggle={() => setParams(withHidden ? { namespace } : { namespace, hidden: 'shown' })}
          />
          {links}
          <h2>Report</h2>
          <HtmlReport namespace={namespace} withHidden={withHidden} />
        </>
      ) : (
        <>
          <Empty>Choose a namespace to read its report.</Empty>
          {links}
        </>
      )}
    </Page>
  );
}
