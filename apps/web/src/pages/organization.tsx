import * as Tabs from '@radix-ui/react-tabs';
import type { ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { isDesktop } from '../api/client';
import { useSession } from '../auth/session';
import { InviteButton } from '../org/invite';
import { Invitations, Members } from '../org/members';
import { Credentials, ServiceKeys } from '../org/keys';
import { Analyzers, Audit, OrgSettings } from '../org/settings';
import { Notifications } from '../org/notifications';
import { RunTasks } from '../org/run-tasks';
import { Scim } from '../org/scim';
import { SingleSignOn } from '../org/sso';
import { Teams } from '../org/teams';
import { Page } from '../ui/page';

interface Tab {
  id: string;
  label: string;
  /** Only for admins and owners. */
  admin: boolean;
  /** Only meaningful on a team server (other people, a listening API, identity providers, HCP Terraform); hidden in the desktop app. */
  team?: boolean;
  render: () => ReactNode;
}

/** The sections in four named groups, so the tabs read as one row per group instead of twelve in a wrap. */
export const TAB_GROUPS: { name: string; tabs: Tab[] }[] = [
  {
    name: 'People',
    tabs: [
      { id: 'members', label: 'Members', admin: false, render: () => <Members /> },
      { id: 'teams', label: 'Teams', admin: false, render: () => <Teams /> },
      { id: 'invitations', label: 'Invitations', admin: true, team: true, render: () => <Invitations /> },
    ],
  },
  {
    name: 'Access',
    tabs: [
      { id: 'keys', label: 'Service keys', admin: true, team: true, render: () => <ServiceKeys /> },
      { id: 'sso', label: 'Single sign-on', admin: true, team: true, render: () => <SingleSignOn /> },
      { id: 'scim', label: 'SCIM', admin: true, team: true, render: () => <Scim /> },
    ],
  },
  {
    name: 'Integrations',
    tabs: [
      { id: 'notifications', label: 'Notifications', admin: true, render: () => <Notifications /> },
      { id: 'run-tasks', label: 'Run tasks', admin: true, team: true, render: () => <RunTasks /> },
    ],
  },
  {
    name: 'Settings',
    tabs: [
      { id: 'settings', label: 'General', admin: true, render: () => <OrgSettings /> },
      { id: 'credentials', label: 'Model credentials', admin: true, render: () => <Credentials /> },
      { id: 'analyzers', label: 'Analyzers', admin: true, render: () => <Analyzers /> },
      { id: 'audit', label: 'Audit log', admin: true, render: () => <Audit /> },
    ],
  },
];

/**
 * Organization administration in two rows of tabs: the group (People, Access, Integrations,
 * Settings), then its sections. The section is in the URL (`?tab=keys`) and picks its group;
 * choosing a group opens its first section. Admin sections only for admins.
 */
export default function Organization() {
  const session = useSession();
  const [params, setParams] = useSearchParams();
  const admin = session.can('admin');
  const groups = TAB_GROUPS.map((g) => ({ ...g, tabs: g.tabs.filter((t) => (!t.admin || admin) && !(t.team && isDesktop())) })).filter(
    (g) => g.tabs.length > 0,
  );
  const tabs = groups.flatMap((g) => g.tabs);
  const tab = tabs.find((t) => t.id === params.get('tab'))?.id ?? 'members';
  const group = groups.find((g) => g.tabs.some((t) => t.id === tab)) ?? groups[0]!;
  return (
    <Page title="Organization" actions={admin && !isDesktop() ? <InviteButton /> : null}>
      <Tabs.Root value={group.name} onValueChange={(name) => setParams({ tab: groups.find((g) => g.name === name)!.tabs[0]!.id })}>
        <Tabs.List className="tabs tab-groups" aria-label="Organization sections">
          {groups.map((g) => (
            <Tabs.Trigger key={g.name} value={g.name}>
              {g.name}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Tabs.Content value={group.name}>
          <Tabs.Root value={tab} onValueChange={(v) => setParams({ tab: v })}>
            <Tabs.List className="tabs sub-tabs" aria-label={group.name}>
              {group.tabs.map((t) => (
                <Tabs.Trigger key={t.id} value={t.id}>
                  {t.label}
                </Tabs.Trigger>
              ))}
            </Tabs.List>
            {group.name === 'Integrations' && !isDesktop() ? (
              <p className="muted small">
                GitHub and every other connection: <Link to="/integrations">Integrations</Link>.
              </p>
            ) : null}
            {group.tabs.map((t) => (
              <Tabs.Content key={t.id} value={t.id} className="tab-panel">
                {tab === t.id ? t.render() : null}
              </Tabs.Content>
            ))}
          </Tabs.Root>
        </Tabs.Content>
      </Tabs.Root>
    </Page>
  );
}
