import * as Dialog from '@radix-ui/react-dialog';
import type { FindingStatus } from '../api/types';

/** One-key statuses of the workbench (`f` opens the reason form preset to false positive). */
export const STATUS_KEYS: Record<string, FindingStatus> = { o: 'open', r: 'needs_review', a: 'acknowledged', s: 'suppressed', f: 'false_positive' };

export const KEY_HELP: [string, string][] = [
  ['j / ↓', 'Next finding'],
  ['k / ↑', 'Previous finding'],
  ['x', 'Select or unselect the finding'],
  ['o', 'Set status: open'],
  ['r', 'Set status: needs review'],
  ['a', 'Set status: acknowledged'],
  ['s', 'Set status: suppressed'],
  ['f', 'False positive: opens the reason form'],
  ['/', 'Search the findings'],
  ['?', 'Show this list'],
];

/** True when a key press belongs to a text field or a menu, not to the workbench. */
export function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  if (el instanceof HTMLInputElement) return !['checkbox', 'radio', 'button', 'submit'].includes(el.type);
  return el.isContentEditable || ['TEXTAREA', 'SELECT'].includes(el.tagName) || !!el.closest('[role="dialog"]');
}

/** The `?` dialog listing the keys (Radix Dialog: focus trapped, Escape closes). */
export function KeyHelp({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" aria-describedby={undefined}>
          <Dialog.Title>Keyboard shortcuts</Dialog.Title>
          <table className="keys">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Action</th>
              </tr>
            </thead>
            <tbody>
              {KEY_HELP.map(([k, d]) => (
                <tr key={k}>
                  <td>
                    <kbd>{k}</kbd>
                  </td>
                  <td>{d}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Dialog.Close asChild>
            <button type="button">Close</button>
          </Dialog.Close>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
