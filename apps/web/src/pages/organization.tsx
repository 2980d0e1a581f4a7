import * as Tabs from '@radix-ui/react-tabs';
import { useSearchParams } from 'react-router';
import { isDesktop } from '../api/client';
import { useSession } from '../auth/session';
import { Invitations, Members } from '../org/members';
import { Credentials, ServiceKeys } from '../org/keys';
import { Analyzers, Audit, OrgSettings } from '../org/settings';
import { Notifications } from '../org/notifications';
import { RunTasks } from '../org/run-tasks';
import { Scim } from '../org/scim';
import { SingleSignOn } from '../org/sso';
import { Teams } from '../org/teams';
import { Page } from '../ui/page';

/** `team: true`: only meaningful on a team server (other people, a listening API, identity providers, HCP Terraform); hidden in the desktop app. */
const TABS = [
  { id: 'members', label: 'Members', admin: false, render: () => <Members /> },
  { id: 'teams', label: 'Teams', admin: false, render: () => <Teams /> },
  { id: 'invitations', label: 'Invitations', admin: true, team: true, render: () => <Invitations /> },
  { id: 'keys', label: 'Service keys', admin: true, team: true, render: () => <ServiceKeys /> },
  { id: 'credentials', label: 'Credentials', admin: true, render: () => <Credentials /> },
  { id: 'analyzers', label: 'Analyzers', admin: true, render: () => <Analyzers /> },
  { id: 'settings', label: 'Settings', admin: true, render: () => <OrgSettings /> },
  { id: 'sso', label: 'Single sign-on', admin: true, team: true, render: () => <SingleSignOn /> },
  { id: 'scim', label: 'SCIM', admin: true, team: true, render: () => <Scim /> },
  { id: 'notifications', label: 'Notifications', admin: true, render: () => <Notifications /> },
  { id: 'run-tasks', label: 'Run tasks', admin: true, team: true, render: () => <RunTasks /> },
  { id: 'audit', label: 'Audit log', admin: true, render: () => <Audit /> },
];

/** Organization administration in tabs (the tab is in the URL: `?tab=keys`); admin tabs only for admins. */
export default function Organization() {
  const session = useSession();
  const [params, setParams] = useSearchParams();
  const tabs = TABS.filter((t) => (!t.admin || session.can('admin')) && !(t.team && isDesktop()));
  const tab = tabs.find((t) => t.id === params.get('tab'))?.id ?? 'members';
  return (
    <Page title="Organization">
      <Tabs.Root value={tab} onValueChange={(v) => setParams({ tab: v })}>
        <Tabs.List className="tabs" aria-label="Organization sections">
          {tabs.map((t) => (
            <Tabs.Trigger key={t.id} value={t.id}>
              {t.label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        {tabs.map((t) => (
          <Tabs.Content key={t.id} value={t.id} className="tab-panel">
            {tab === t.id ? t.render() : null}
          </Tabs.Content>
        ))}
      </Tabs.Root>
    </Page>
  );
}
