import { useState } from 'react';

/** A button copying `value` to the clipboard, announcing the result. */
export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [done, setDone] = useState<string | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setDone('Copied');
    } catch {
      setDone('Copy failed: select the text and copy it by hand');
    }
  };
  return (
    <span className="copy">
      <button type="button" onClick={() => void copy()}>
        {label}
      </button>
      <span role="status" aria-live="polite" className="muted">
        {done}
      </span>
    </span>
  );
}
