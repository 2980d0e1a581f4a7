import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../api/client';
import type { OrgSummary } from '../api/types';
import { useSession } from '../auth/session';
import { Page, when } from '../ui/page';
import { AdminUsers } from '../admin/users';
import { ActionResult, QueryView } from '../ui/states';

/** Superadmin: organizations with lock and 2FA policy (GET/PATCH /admin/organizations…). The API enforces superadmin. */
export default function Admin() {
  const session = useSession();
  const client = useQueryClient();
  const orgs = useQuery({
    queryKey: ['admin', 'orgs'],
    enabled: session.is_superadmin,
    queryFn: () => api.get<{ organizations: OrgSummary[] }>('/admin/organizations'),
  });
  const set = useMutation({
    mutationFn: ({ id, kind, value }: { id: string; kind: 'lock' | '2fa-policy'; value: boolean }) =>
      api.patch(`/admin/organizations/${encodeURIComponent(id)}/${kind}`, kind === 'lock' ? { locked: value } : { require_2fa: value }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['admin'] }),
  });
  if (!session.is_superadmin)
    return (
      <Page title="Administration">
        <p>This section is for platform administrators.</p>
      </Page>
    );
  return (
    <Page title="Administration">
      <h2>Organizations</h2>
      <QueryView query={orgs} isEmpty={(d) => d.organizations.length === 0} empty="No organizations.">
        {(d) => (
          <table className="list">
            <caption className="visually-hidden">Organizations</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Plan</th>
                <th scope="col">Members</th>
                <th scope="col">Spend this month</th>
                <th scope="col">Created</th>
                <th scope="col">Locked</th>
                <th scope="col">Require 2FA</th>
              </tr>
            </thead>
            <tbody>
              {d.organizations.map((o) => (
                <tr key={o.org_id}>
                  <td>{o.name}</td>
                  <td>{o.plan_tier}</td>
                  <td>{o.member_count}</td>
                  <td>${o.current_month_cost_usd.toFixed(2)}</td>
                  <td>{when(o.created_at)}</td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Lock ${o.name}`}
                      checked={o.locked}
                      onChange={(e) => set.mutate({ id: o.org_id, kind: 'lock', value: e.target.checked })}
                    />
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Require 2FA in ${o.name}`}
                      checked={o.require_2fa}
                      onChange={(e) => set.mutate({ id: o.org_id, kind: '2fa-policy', value: e.target.checked })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
      <ActionResult error={set.error} />
      <h2>Users</h2>
      <QueryView query={orgs} isEmpty={(d) => d.organizations.length === 0} empty="No organization, so no accounts to manage.">
        {(d) => <AdminUsers organizations={d.organizations} />}
      </QueryView>
      <h2>Platform</h2>
      <p>
        <Link to="/admin/settings/sign-in">Sign-in settings</Link>: social sign-in providers, registration and terms.
      </p>
    </Page>
  );
}
