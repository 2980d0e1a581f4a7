import { readFileSync } from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The official SARIF 2.1.0 JSON schema (tests/fixtures/sarif/, OASIS errata01, byte-identical)
 * compiled once with ajv and ajv-formats (uri, uri-reference, date-time are checked).
 *
 * The file is written in JSON Schema draft-04, which ajv 8 does not load. It uses none of the
 * keywords whose meaning changed after draft-04 (no boolean exclusiveMinimum/Maximum), so it is
 * compiled as draft-07 once its draft-04 `id` is renamed `$id` and its `$schema` dropped.
 * `unicodeRegExp: false`: the schema's `language` pattern is not a valid `/u` expression.
 */
const official = JSON.parse(readFileSync(new URL('../fixtures/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const { $schema: _draft04, id, ...rest } = official;
const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile({ $id: String(id), ...rest });

/** The schema violations of `log` as `instancePath message params` lines; [] for a valid SARIF 2.1.0 log. */
export function sarifSchemaErrors(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
