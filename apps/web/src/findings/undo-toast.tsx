import { useEffect } from 'react';

/** How long a triage can be undone from the toast. */
export const UNDO_MS = 10_000;

/** What the toast offers to undo: a sentence and the action. `key` distinguishes two saves with the same text. */
export interface UndoOffer {
  key: number;
  text: string;
  undo: () => void;
}

/**
 * The toast after a triage: what changed, and an Undo button (also the `u` key) for
 * {@link UNDO_MS}; it closes itself after that, or when `onClose` is called. Announced politely.
 */
export function UndoToast({ offer, onClose }: { offer: UndoOffer | null; onClose: () => void }) {
  useEffect(() => {
    if (!offer) return;
    const timer = setTimeout(onClose, UNDO_MS);
    return () => clearTimeout(timer);
  }, [offer, onClose]);
  return (
    <div className="fw-toast-region" role="status" aria-live="polite">
      {offer ? (
        <div className="fw-toast" data-testid="undo-toast">
          <span>{offer.text}</span>
          <button
            type="button"
            aria-keyshortcuts="u"
            onClick={() => {
              offer.undo();
              onClose();
            }}
          >
            Undo (u)
          </button>
          <button type="button" className="fw-toast-close" aria-label="Dismiss" onClick={onClose}>
            ×
          </button>
        </div>
      ) : null}
    </div>
  );
}
