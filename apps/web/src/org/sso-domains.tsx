import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { ApiError, api } from '../api/client';
import type { SsoConnection } from '../api/types';
import { CopyButton } from '../ui/copy';
import { when } from '../ui/page';
import { ErrorBox } from '../ui/states';

type DomainStatus = SsoConnection['domains'][number];

/** The sentence under a verified domain: how and when. */
function verifiedLine(d: DomainStatus): string {
  const how = d.verified_by === 'superadmin' ? 'Approved by a platform administrator' : 'Verified through DNS';
  return `${how} on ${when(d.verified_at)}.`;
}

/**
 * The connection's e-mail domains and their verification (GET /orgs/{org_id}/sso `domains`;
 * POST /orgs/{org_id}/sso/domains/{domain}/verify). A pending domain shows the TXT record to
 * publish and a "Verify now" button whose outcome is said in words: the server's detail names
 * the record it looked for.
 */
export function SsoDomains({ connection, base, queryKey }: { connection: SsoConnection; base: string; queryKey: QueryKey }) {
  const client = useQueryClient();
  const verify = useMutation({
    mutationFn: (domain: string) => api.post<DomainStatus>(`${base}/domains/${encodeURIComponent(domain)}/verify`),
    onSuccess: (updated) =>
      client.setQueryData<SsoConnection | null>(queryKey, (c) =>
        c ? { ...c, domains: c.domains.map((d) => (d.domain === updated.domain ? updated : d)) } : c,
      ),
  });
  if (connection.domains.length === 0) return null;
  const outcome = (domain: string) => {
    if (verify.variables !== domain || verify.isPending) return null;
    if (verify.isSuccess)
      return (
        <p className="state ok" role="status">
          {domain} is verified: its existing accounts can now sign in through this connection, and the sign-in page sends its users here.
        </p>
      );
    if (verify.error instanceof ApiError && [409, 422, 502].includes(verify.error.status)) {
      return (
        <p className="field-error" role="alert">
          Not verified: {verify.error.detail}
        </p>
      );
    }
    return verify.error ? <ErrorBox error={verify.error} /> : null;
  };
  return (
    <section aria-labelledby="sso-domains-title">
      <h2 id="sso-domains-title">E-mail domains</h2>
      <p className="muted">
        Until a domain is verified, single sign-on can create new accounts in this organization but never signs in an existing account from elsewhere, and the
        sign-in page does not send the domain's users here. Verify a domain by publishing the TXT record shown with your DNS provider, then choose Verify now.
        If you cannot publish DNS records, ask a platform administrator to approve the domain.
      </p>
      <ul className="plain">
        {connection.domains.map((d) => (
          <li key={d.domain}>
            <div className="panel">
              <p>
                <strong>{d.domain}</strong> <span className={`badge ${d.status === 'verified' ? 'st-done' : 'st-needs_review'}`}>{d.status}</span>
              </p>
              {d.status === 'verified' ? (
                <p>{verifiedLine(d)}</p>
              ) : (
                <>
                  <dl className="facts">
                    <dt>TXT record name</dt>
                    <dd>
                      <code>{d.txt_record_name}</code> <CopyButton value={d.txt_record_name} label={`Copy name for ${d.domain}`} />
                    </dd>
                    <dt>TXT record value</dt>
                    <dd>
                      <code>{d.txt_record_value}</code> <CopyButton value={d.txt_record_value} label={`Copy value for ${d.domain}`} />
                    </dd>
                  </dl>
                  <button type="button" aria-label={`Verify now (${d.domain})`} onClick={() => verify.mutate(d.domain)} disabled={verify.isPending}>
                    {verify.isPending && verify.variables === d.domain ? 'Checking DNS…' : 'Verify now'}
                  </button>
                </>
              )}
              {outcome(d.domain)}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
