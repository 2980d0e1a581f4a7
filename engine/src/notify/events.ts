import type { EngineContext } from '../context/engine-context';

/**
 * The notification event catalogue (analysis-api.md "Outbound: notification channels",
 * GET /notifications/events). This deployment emits both events of the spec.
 */
export interface EventDescriptor {
  readonly name: string;
  readonly description: string;
  readonly default_on: boolean;
}

export const PR_GATE_BLOCKED = 'pr.gate_blocked';
export const FINDING_NEEDS_REVIEW = 'finding.needs_review';

export const EVENT_CATALOGUE: readonly EventDescriptor[] = [
  { name: PR_GATE_BLOCKED, description: "A pull request's check was set to failure or pending by an analysis", default_on: true },
  {
    name: FINDING_NEEDS_REVIEW,
    description: 'A finding entered needs_review (low model confidence, a rule requiring review, or a manual triage)',
    default_on: true,
  },
];

/** GET /notifications/events: the catalogue, or an empty array when no analyzer is installed. */
export function listEvents(ctx: EngineContext): EventDescriptor[] {
  return ctx.analyzers.list().length === 0 ? [] : EVENT_CATALOGUE.map((e) => ({ ...e }));
}

/** True when `name` is an event of the catalogue. */
export function isKnownEvent(name: string): boolean {
  return EVENT_CATALOGUE.some((e) => e.name === name);
}
