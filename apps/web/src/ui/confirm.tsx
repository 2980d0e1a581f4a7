import * as Dialog from '@radix-ui/react-dialog';
import { useState, type ReactNode } from 'react';

/**
 * A button that asks before acting: it opens a modal dialog (Radix Dialog: focus trapped,
 * Escape and Cancel close it) with `question` and an explanation, and calls `onConfirm` only
 * when the user presses the confirm button (labelled `confirmLabel`, default the button's label).
 */
export function ConfirmButton({
  label,
  question,
  children,
  confirmLabel,
  onConfirm,
  disabled,
  danger,
}: {
  label: string;
  question: string;
  children?: ReactNode;
  confirmLabel?: string;
  onConfirm: () => void;
  disabled?: boolean;
  danger?: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <button type="button" disabled={disabled} className={danger ? 'danger' : undefined}>
          {label}
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" {...(children ? {} : { 'aria-describedby': undefined })}>
          <Dialog.Title>{question}</Dialog.Title>
          {children ? (
            <Dialog.Description asChild>
              <div>{children}</div>
            </Dialog.Description>
          ) : null}
          <div className="actions">
            <button
              type="button"
              className={danger ? 'danger primary' : 'primary'}
              onClick={() => {
                setOpen(false);
                onConfirm();
              }}
            >
              {confirmLabel ?? label}
            </button>
            <Dialog.Close asChild>
              <button type="button">Cancel</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
