/**
 * Builds a text-bodied unit (plan text, configuration blocks, diff hunks) with its plain-text
 * secrets masked first (checks/secrets.ts maskTextSecrets), so the stored body and its hash never
 * hold the secret. Plan JSON masks on values instead (plan-secrets.ts).
 */
import { maskTextSecrets } from '../common/secrets';
import { hashUnit } from '../../core/hash';
import type { AnalysisUnit, UnitAction } from '../../core/unit';

/**
 * `{type, name, action, body}` → the unit: body masked, hash over the masked body, `metadata`
 * plus `plaintext_secrets` (attribute, kind, masked body line) when anything was masked.
 */
export function maskedTextUnit(
  analyzer: string,
  unit: { type: string; name: string; action: UnitAction; body: string },
  metadata: Record<string, unknown>,
): AnalysisUnit {
  const { body, secrets } = maskTextSecrets(unit.body);
  const masked = { ...unit, body };
  return {
    ...masked,
    hash: hashUnit({ analyzer, ...masked }),
    metadata: secrets.length > 0 ? { ...metadata, plaintext_secrets: secrets } : metadata,
  };
}
