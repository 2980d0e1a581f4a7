import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useNamespaces } from './data';

/** How many namespaces the button names before it counts them instead. */
const NAMED = 2;

/**
 * The namespace filter: a button naming the selection that opens a panel with a search box
 * (substring, case-insensitive: "aws" finds `aws-prod` and `legacy-aws`) and one checkbox per
 * namespace; several may be ticked. Every change applies at once (`onChange` with the new
 * list; empty = every namespace). Escape closes the panel and gives the focus back to the button.
 */
export function NamespacePicker({ selected, onChange }: { selected: readonly string[]; onChange: (next: string[]) => void }) {
  const [open, setOpen] = useState(false);
  const [search, setSearch] = useState('');
  const namespaces = useNamespaces();
  const id = useId();
  const button = useRef<HTMLButtonElement>(null);
  const searchBox = useRef<HTMLInputElement>(null);
  const root = useRef<HTMLDivElement>(null);
  // The selection as last changed here, ahead of the URL (the router commits navigations as transitions).
  const latest = useRef(selected);
  const [picked, setPicked] = useState<readonly string[]>(selected);
  const selectedKey = selected.join('\u0000');
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the URL's selection when it changes (by value), not on every render's new array
  useEffect(() => {
    latest.current = selected;
    setPicked(selected);
  }, [selectedKey]);
  const change = (next: string[]) => {
    latest.current = next;
    setPicked(next);
    onChange(next);
  };
  const names = useMemo(() => {
    const all = new Set((namespaces.data ?? []).map((n) => n.namespace));
    for (const s of picked) all.add(s); // a namespace in the URL stays visible even before the list loads
    return [...all].sort((a, b) => a.localeCompare(b));
  }, [namespaces.data, picked]);
  const needle = search.trim().toLowerCase();
  const shown = needle ? names.filter((n) => n.toLowerCase().includes(needle)) : names;

  useEffect(() => {
    if (open) searchBox.current?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    // A click outside the picker closes it, as a menu does.
    const onDown = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onDown);
    return () => document.removeEventListener('pointerdown', onDown);
  }, [open]);

  const close = () => {
    setOpen(false);
    button.current?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      close();
    }
  };
  const toggle = (name: string) => {
    const now = latest.current;
    change(now.includes(name) ? now.filter((s) => s !== name) : [...now, name]);
  };
  const label =
    picked.length === 0 ? 'All namespaces' : picked.length <= NAMED ? picked.join(', ') : `${picked.slice(0, NAMED).join(', ')} +${picked.length - NAMED}`;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: Escape anywhere in the picker closes it (keyboard handling only)
    <div className="fw-picker field" ref={root} onKeyDown={onKey}>
      <span className="label" id={`${id}-label`}>
        Namespace
      </span>
      <button
        type="button"
        ref={button}
        className="fw-picker-button"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        aria-labelledby={`${id}-label ${id}-value`}
        onClick={() => setOpen((o) => !o)}
        title={picked.join(', ') || undefined}
      >
        <span id={`${id}-value`}>{label}</span>
        <span aria-hidden="true"> ▾</span>
      </button>
      {open ? (
        <fieldset className="fw-picker-panel" id={`${id}-panel`}>
          <legend className="visually-hidden">Choose namespaces</legend>
          <input
            ref={searchBox}
            type="search"
            placeholder="Search namespaces"
            aria-label="Search namespaces"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          {namespaces.isPending ? <p className="muted">Loading namespaces…</p> : null}
          {namespaces.isError ? <p className="muted">Could not load the namespaces; reopen to try again.</p> : null}
          {namespaces.isSuccess && shown.length === 0 ? (
            <p className="muted">{needle ? `No namespace contains “${search.trim()}”.` : 'No namespaces yet.'}</p>
          ) : null}
          <ul className="fw-picker-list">
            {shown.map((name) => (
              <li key={name}>
                <label title={name}>
                  <input type="checkbox" checked={picked.includes(name)} onChange={() => toggle(name)} />
                  <span>{name}</span>
                </label>
              </li>
            ))}
          </ul>
          <div className="fw-picker-actions">
            <button type="button" onClick={() => change([])} disabled={picked.length === 0}>
              All namespaces
            </button>
            <button type="button" onClick={close}>
              Done
            </button>
          </div>
        </fieldset>
      ) : null}
    </div>
  );
}
