import * as Dialog from '@radix-ui/react-dialog';
import type { FindingStatus } from '../api/types';

/** One-key statuses of the workbench (`f` and `s` open the form to ask for a reason; `s` also for an expiry). */
export const STATUS_KEYS: Record<string, FindingStatus> = { o: 'open', r: 'needs_review', a: 'acknowledged', s: 'suppressed', f: 'false_positive' };

/** Statuses whose key opens the form (a reason is asked) instead of saving at once. */
export const FORM_KEYS: ReadonlySet<FindingStatus> = new Set<FindingStatus>(['false_positive', 'suppressed']);

export const KEY_HELP: [string, string][] = [
  ['j / ↓', 'Next finding'],
  ['k / ↑', 'Previous finding'],
  ['x', 'Select or unselect the finding'],
  ['o', 'Set status: open, then go to the next finding'],
  ['r', 'Set status: needs review, then next'],
  ['a', 'Set status: acknowledged, then next'],
  ['s', 'Suppress: asks for a reason and an optional end date'],
  ['f', 'False positive: asks for a reason'],
  ['Ctrl+Enter', 'Save the form, then next'],
  ['Esc', 'Leave the form (or close the finding)'],
  ['u', 'Undo the last triage (for 10 seconds)'],
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
