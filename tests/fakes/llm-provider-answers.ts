/**
 * The valid answer of the fake LLM provider (llm-provider-server.ts), derived from the prompt:
 * the unit body between prompt.ts's fences, the first rule id of the ruleset between
 * RULESET_BEGIN/END, the unit name from the `- name:` line.
 */
import { extractUnitBody, RULESET_BEGIN, RULESET_END } from '../../engine/src/llm/prompt';

/** A valid analysis payload derived from the prompt (see module comment). */
export function validAnswer(system: string, user: string): string {
  const body = extractUnitBody(user) ?? '';
  const begin = system.indexOf(RULESET_BEGIN);
  const end = system.indexOf(RULESET_END, begin + 1);
  const rules = begin >= 0 && end > begin ? system.slice(begin + RULESET_BEGIN.length, end) : system;
  const ruleId = pickRuleId(rules) ?? 'FAKE-RULE-001';
  const nameLine = /^- name: (".*")$/m.exec(user);
  let name = 'unknown';
  if (nameLine) {
    try {
      name = String(JSON.parse(nameLine[1]));
    } catch {
      // keep 'unknown'
    }
  }
  const evidence = body.split(/\r?\n/).find((line) => /[A-Za-z0-9]/.test(line));
  return JSON.stringify({
    summary: `Fake analysis of ${name}.`,
    findings: [
      {
        title: `Fake finding for ${ruleId}`,
        severity: 'HIGH',
        rule_id: ruleId,
        risk: 'The fake provider flags the first line of every unit.',
        why_it_matters: 'It lets tests check the whole pipeline.',
        suggested_next_step: 'Nothing; this is a test double.',
        confidence: 'HIGH',
        evidence: evidence ? [evidence.trim()] : [],
        resource_address: name,
        tags: ['fake'],
      },
    ],
  });
}

/**
 * First rule id of a Markdown ruleset (earliest in the text): `## GEN-SECRET-IN-CODE: title`
 * (the shipped rulesets), `## ID: X`, or `- **ID:** X` / `rule_id: X`.
 */
export function pickRuleId(rules: string): string | null {
  const patterns = [
    /^#{1,6}\s*(?:rule\s*)?id\s*:\s*`?([A-Za-z0-9][\w.:-]*)`?/im,
    /^\s*(?:[-*]\s*)?\**(?:rule[_ ]?)?id\**\s*:\s*\**\s*`?([A-Za-z0-9][\w.:-]*)`?/im,
    /^#{1,6}\s+`?\[?([A-Z][A-Z0-9]*(?:[-_.][A-Z0-9]+)+)\]?`?/m,
  ];
  let best: RegExpExecArray | null = null;
  for (const pattern of patterns) {
    const match = pattern.exec(rules);
    if (match && (best === null || match.index < best.index)) best = match;
  }
  return best ? best[1].replace(/[:.]+$/, '') : null;
}
