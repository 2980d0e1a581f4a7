import { useCallback, useEffect, useRef, useState, type CSSProperties, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import './findings.css';

const STORAGE_KEY = 'planwarden.findings.drawer';
const MIN = 300;
const MAX = 960;
const DEFAULT = 360;
/** One arrow-key press of the separator. */
const STEP = 32;

const clamp = (px: number) => Math.round(Math.max(MIN, Math.min(MAX, px)));

function storedWidth(): number {
  try {
    const n = Number(localStorage.getItem(STORAGE_KEY));
    return Number.isFinite(n) && n > 0 ? clamp(n) : DEFAULT;
  } catch {
    return DEFAULT; // storage off (privacy mode): the default width
  }
}

/**
 * The list beside a resizable drawer. The drawer opens when `drawer` is given; a separator
 * between them resizes it by dragging or with the arrow keys (Home/End: narrowest/widest), and
 * the width is remembered in this browser. Below 700 px the drawer stacks under the list
 * (findings.css) and the separator hides.
 */
export function DrawerLayout({ list, drawer, label }: { list: ReactNode; drawer: ReactNode | null; label: string }) {
  const [width, setWidth] = useState(storedWidth);
  const root = useRef<HTMLDivElement>(null);
  const dragging = useRef(false);
  useEffect(() => {
    try {
      localStorage.setItem(STORAGE_KEY, String(width));
    } catch {
      // storage off: the width lasts for this page only
    }
  }, [width]);
  const fromPointer = useCallback((clientX: number) => {
    const box = root.current?.getBoundingClientRect();
    if (box) setWidth(clamp(box.right - clientX));
  }, []);
  const onKey = (e: KeyboardEvent) => {
    const by: Record<string, number> = { ArrowLeft: STEP, ArrowRight: -STEP, Home: MAX, End: -MAX };
    if (!(e.key in by)) return;
    e.preventDefault();
    setWidth((w) => clamp(w + by[e.key]));
  };
  const style = { '--fw-drawer': `${width}px` } as CSSProperties;
  return (
    <div className={drawer ? 'fw-workbench fw-open' : 'fw-workbench'} ref={root} style={style}>
      <div className="fw-list">{list}</div>
      {drawer ? (
        <>
          {/* biome-ignore lint/a11y/useSemanticElements: a focusable, resizing separator (WAI-ARIA window splitter); <hr> cannot take the focus */}
          <div
            className="fw-resizer"
            role="separator"
            tabIndex={0}
            aria-orientation="vertical"
            aria-label="Resize the finding drawer (arrow keys)"
            aria-valuemin={MIN}
            aria-valuemax={MAX}
            aria-valuenow={width}
            onKeyDown={onKey}
            onPointerDown={(e: PointerEvent<HTMLDivElement>) => {
              dragging.current = true;
              e.currentTarget.setPointerCapture(e.pointerId);
            }}
            onPointerMove={(e) => {
              if (dragging.current) fromPointer(e.clientX);
            }}
            onPointerUp={(e) => {
              dragging.current = false;
              e.currentTarget.releasePointerCapture(e.pointerId);
            }}
          />
          <aside className="fw-drawer detail-pane" aria-label={label}>
            {drawer}
          </aside>
        </>
      ) : null}
    </div>
  );
}
