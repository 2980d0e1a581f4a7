import { useEffect, useRef } from 'react';
import type { Severity } from '../api/types';
import { SeverityBadge } from '../ui/page';
import { ACTIONS, severityCounts, shortAddress, shownFindings, type PlanNode, type PlanUnit } from './data';

const ACTION_LABEL = new Map(ACTIONS.map((a) => [a.action, a.label]));

/** Severity badges with counts (`HIGH 2`), text and colour, never colour alone. */
export function SeverityCounts({ findings }: { findings: readonly { severity: Severity }[] }) {
  return (
    <span className="plan-badges">
      {severityCounts(findings).map(([severity, n]) => (
        <span key={severity} className="plan-badge">
          <SeverityBadge severity={severity} />
          <span className="plan-count">{n}</span>
        </span>
      ))}
    </span>
  );
}

/** Terraform's symbol for the action, in its colour, with the action's name for screen readers. */
export function ActionSymbol({ unit }: { unit: Pick<PlanUnit, 'action' | 'symbol'> }) {
  return (
    <span className={`plan-symbol act-${unit.action}`} title={ACTION_LABEL.get(unit.action)}>
      <span aria-hidden="true">{unit.symbol || '·'}</span>
      <span className="visually-hidden">{ACTION_LABEL.get(unit.action)}</span>
    </span>
  );
}

interface TreeProps {
  readonly node: PlanNode;
  readonly activeHash: string | null;
  readonly openHash: string | null;
  readonly collapsed: ReadonlySet<string>;
  readonly onToggle: (key: string) => void;
  readonly onOpen: (hash: string) => void;
}

/** One unit row: symbol, address, severity badges; greyed when unchanged or only read. */
function UnitRow({ unit, active, open, onOpen }: { unit: PlanUnit; active: boolean; open: boolean; onOpen: (hash: string) => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  // Roving focus: the active row holds the keyboard focus, so Enter opens the row j/k reached.
  useEffect(() => {
    if (!active || !ref.current) return;
    ref.current.focus({ preventScroll: true });
    ref.current.scrollIntoView({ block: 'nearest' });
  }, [active]);
  const quiet = unit.action === 'no-op' || unit.action === 'read';
  return (
    <li>
      <button
        ref={ref}
        type="button"
        className={`plan-unit${quiet ? ' quiet' : ''}${active ? ' active' : ''}`}
        aria-current={open ? 'true' : undefined}
        data-hash={unit.hash}
        onClick={() => onOpen(unit.hash)}
      >
        <ActionSymbol unit={unit} />
        <span className="plan-address">{shortAddress(unit)}</span>
        {!unit.analysed ? <span className="plan-note">not analysed</span> : unit.lacks_model_review ? <span className="plan-note">checks only</span> : null}
        <SeverityCounts findings={shownFindings(unit)} />
      </button>
    </li>
  );
}

/** A module (or file) and what it holds; its head collapses and expands it. */
export function PlanTree({ node, activeHash, openHash, collapsed, onToggle, onOpen }: TreeProps) {
  const shut = node.key !== '' && collapsed.has(node.key);
  const findings = shownFindingsBelow(node);
  return (
    <li className="plan-node">
      {node.key === '' ? (
        <div className="plan-node-head">
          <NodeHead node={node} findings={findings} />
        </div>
      ) : (
        <button type="button" className="plan-node-head" aria-expanded={!shut} onClick={() => onToggle(node.key)}>
          <span className="plan-caret" aria-hidden="true" />
          <NodeHead node={node} findings={findings} />
        </button>
      )}
      {shut ? null : (
        <ul>
          {node.units.map((u) => (
            <UnitRow key={u.hash} unit={u} active={u.hash === activeHash} open={u.hash === openHash} onOpen={onOpen} />
          ))}
          {node.children.map((c) => (
            <PlanTree key={c.key} node={c} activeHash={activeHash} openHash={openHash} collapsed={collapsed} onToggle={onToggle} onOpen={onOpen} />
          ))}
        </ul>
      )}
    </li>
  );
}

function NodeHead({ node, findings }: { node: PlanNode; findings: readonly { severity: Severity }[] }) {
  return (
    <>
      <span className="plan-node-label">{node.label}</span>
      <span className="muted plan-node-count">
        {node.count} {node.count === 1 ? 'resource' : 'resources'}
      </span>
      <SeverityCounts findings={findings} />
    </>
  );
}

function shownFindingsBelow(node: PlanNode): ReturnType<typeof shownFindings> {
  return [...node.units.flatMap(shownFindings), ...node.children.flatMap(shownFindingsBelow)];
}
