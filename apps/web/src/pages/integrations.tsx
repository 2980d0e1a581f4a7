import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { getOrNull } from '../api/optional';
import type { CodehostConfig } from '../api/types';
import { useSession } from '../auth/session';
import { Page } from '../ui/page';
import { Empty } from '../ui/states';

/** Every connection of the organization to the outside, each with where it is set up. */
const ENTRIES: { id: string; title: string; to: string; text: string }[] = [
  {
    id: 'github',
    title: 'GitHub',
    to: '/integrations/codehost',
    text: 'Install the GitHub App on your repositories: every pull request is analysed, one comment is kept up to date and a commit status gates the merge.',
  },
  {
    id: 'sso',
    title: 'Single sign-on',
    to: '/organization?tab=sso',
    text: 'Sign in through your identity provider (OpenID Connect), with verified e-mail domains.',
  },
  { id: 'scim', title: 'SCIM provisioning', to: '/organization?tab=scim', text: 'Let your identity provider create, update and deactivate accounts.' },
  {
    id: 'notifications',
    title: 'Notifications',
    to: '/organization?tab=notifications',
    text: 'Signed webhooks and chat channels for new findings and finished jobs.',
  },
  { id: 'run-tasks', title: 'HCP Terraform run tasks', to: '/organization?tab=run-tasks', text: 'Review every Terraform Cloud run before it applies.' },
  { id: 'ci', title: 'CI pipelines', to: '/organization?tab=keys', text: 'A service key and a copyable GitHub Actions or GitLab CI job.' },
];

/** Whether GitHub is connected, from GET /orgs/{org_id}/integrations/codehost (null: never set up). */
function GithubStatus({ orgId }: { orgId: string }) {
  const base = `/orgs/${encodeURIComponent(orgId)}/integrations/codehost`;
  const config = useQuery({ queryKey: ['codehost', base], queryFn: () => getOrNull<CodehostConfig>(base) });
  if (config.isPending || config.isError) return null;
  return (
    <p className="small">
      {config.data?.installation_id ? (
        <>
          <span className="badge st-done">connected</span> installation {config.data.installation_id}
        </>
      ) : (
        <span className="badge st-suppressed">not connected</span>
      )}
    </p>
  );
}

/** /integrations: one place that lists every integration and links to its page (admins and owners set them up). */
export default function Integrations() {
  const session = useSession();
  if (!session.can('admin'))
    return (
      <Page title="Integrations">
        <Empty>Only organization admins and owners set up integrations. Ask one of them; pull-request results still appear under Findings.</Empty>
      </Page>
    );
  return (
    <Page title="Integrations">
      <ul className="hub">
        {ENTRIES.map((e) => (
          <li key={e.id}>
            <h2 id={`hub-${e.id}`}>
              <Link to={e.to}>{e.title}</Link>
            </h2>
            <p>{e.text}</p>
            {e.id === 'github' ? <GithubStatus orgId={session.org_id!} /> : null}
          </li>
        ))}
      </ul>
    </Page>
  );
}
