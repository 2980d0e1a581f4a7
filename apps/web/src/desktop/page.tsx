import * as Tabs from '@radix-ui/react-tabs';
import { useSearchParams } from 'react-router';
import { isDesktop } from '../api/client';
import { Page } from '../ui/page';
import { OllamaPanel } from './ollama';
import { SyncPanel } from './sync';

const TABS = [
  { id: 'sync', label: 'Sync to a team', render: () => <SyncPanel /> },
  { id: 'ollama', label: 'Ollama (local models)', render: () => <OllamaPanel /> },
];

/**
 * The desktop app's own settings, at /desktop?tab=sync|ollama: sync to a team org and
 * the local models. Its nav entry appears only in the desktop (isDesktop: the desktop renderer's
 * transport says so); opened in a browser on the team server, it says it is not available there.
 */
export default function DesktopSettings() {
  const [params, setParams] = useSearchParams();
  const tab = TABS.find((t) => t.id === params.get('tab'))?.id ?? 'sync';
  if (!isDesktop()) {
    return (
      <Page title="Sync & Ollama">
        <div className="state unavailable" role="note">
          <p>
            <strong>Only in the desktop app.</strong> Syncing to a team server and local models (Ollama) are settings of the Planwarden desktop app.
          </p>
        </div>
      </Page>
    );
  }
  return (
    <Page title="Sync & Ollama">
      <Tabs.Root value={tab} onValueChange={(v) => setParams({ tab: v })}>
        <Tabs.List className="tabs" aria-label="Desktop settings">
          {TABS.map((t) => (
            <Tabs.Trigger key={t.id} value={t.id}>
              {t.label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        {TABS.map((t) => (
          <Tabs.Content key={t.id} value={t.id} className="tab-panel">
            {tab === t.id ? t.render() : null}
          </Tabs.Content>
        ))}
      </Tabs.Root>
    </Page>
  );
}
