/**
 * The checks an ingest makes wherever it runs (the event loop or the ingest worker), so both
 * answer the same 422 (analysis-api.md "Ingest and client-led analysis": 422 empty body).
 */
import type { AnalysisUnit } from '../core/unit';
import { ValidationError } from '../core/errors';

/** Throws ValidationError (422) for a body that is empty or only whitespace once decoded. */
export function assertNotEmpty(raw: string): void {
  if (raw.trim().length === 0) throw new ValidationError('The request body is empty');
}

/**
 * Throws ValidationError (422) when an explicit analyzer found nothing to record (an ingest
 * yields units); auto-routing may yield none.
 */
export function assertUnitsFound(analyzer: string, units: readonly AnalysisUnit[]): void {
  if (units.length === 0) throw new ValidationError(`Analyzer '${analyzer}' found no resources in the input`);
}
