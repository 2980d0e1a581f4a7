/**
 * Unit construction shared by the analyzers that read whole files (kubernetes, dockerfile,
 * github-actions, cloudformation): one place computes the hash (ingest/hash.ts composition).
 */
import { hashUnit } from '../../core/hash';
import type { AnalysisUnit, UnitAction } from '../../core/unit';

export interface UnitFields {
  readonly type: string;
  readonly name: string;
  readonly action: UnitAction;
  readonly body: string;
}

/** A unit with its stable hash (analyzer, type, name, action, body) and the given metadata. */
export function makeUnit(analyzer: string, fields: UnitFields, metadata: Record<string, unknown>): AnalysisUnit {
  return { ...fields, hash: hashUnit({ analyzer, ...fields }), metadata };
}

/** The same unit with another action (re-hashed: the action is part of the hash). */
export function withAction(analyzer: string, unit: AnalysisUnit, action: UnitAction, extra: Record<string, unknown>): AnalysisUnit {
  const { type, name, body } = unit;
  return makeUnit(analyzer, { type, name, action, body }, { ...unit.metadata, ...extra });
}

/** `# file: <path>` when the path is known, else nothing: the first line of every body. */
export function fileHeader(path: string | undefined): string[] {
  return path ? [`# file: ${path}`] : [];
}
