/**
 * The prompt-injection scanner (identity-api.md "Platform settings" `analysis.injection_scan_*`;
 * docs/decisions.md "Injection scanner"): pull-request content and reply comments are scanned
 * before analysis for text aimed at the reviewing model rather than at people: instructions to
 * the reviewer, role changes, fake system or chat-template text, hidden Unicode (bidi controls,
 * zero-width and tag characters) and the same hidden in base64. Deterministic and local; a hit
 * is evidence for a human, never a reason to skip the analysis.
 */

/** The rule id of an injection finding (one finding per resource; the scanner's own rule). */
export const INJECTION_RULE_ID = 'PW-INJECTION-001';

export type InjectionKind = 'reviewer_instruction' | 'role_change' | 'fake_system_text' | 'hidden_unicode' | 'encoded_payload';

export interface InjectionHit {
  readonly kind: InjectionKind;
  /** 1-based line of the scanned text. */
  readonly line: number;
  /** The offending text, at most 120 characters, with invisible characters made visible (`<U+202E>`). */
  readonly excerpt: string;
}

/** Bidi embeddings/overrides/isolates, zero-width characters, word joiner, invisible operators, tag characters. */
const HIDDEN = /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2060-\u2064\u061C\u180E]|\uFEFF|[\u{E0000}-\u{E007F}]/u;
const HIDDEN_ALL = new RegExp(HIDDEN.source, 'gu');

interface Pattern {
  readonly kind: InjectionKind;
  readonly re: RegExp;
}

const ADDRESSEE = String.raw`(?:ai|a\.i\.|llm|language model|assistant|chat ?gpt|gpt(?:-\d)?|claude|copilot|model|bot|(?:automated |security |code |ai )?(?:reviewer|scanner|analy[sz]er))`;

const PATTERNS: readonly Pattern[] = [
  // "ignore / disregard / forget ... previous / all ... instructions / rules / prompt"
  {
    kind: 'reviewer_instruction',
    re: /\b(?:ignore|disregard|forget|override|bypass|skip)\b[^\n]{0,40}?\b(?:previous|prior|above|earlier|preceding|all|any|your|the|system|security|these)\b[^\n]{0,30}?\b(?:instructions?|rules?|rulesets?|prompts?|guidelines|directives|policies|checks?|context)\b/i,
  },
  // Telling the reviewer what verdict to give.
  {
    kind: 'reviewer_instruction',
    re: /\b(?:report|return|output|respond(?: with)?|answer(?: with)?|reply(?: with)?|say|state|conclude)\b[^\n]{0,30}?(?:\bno (?:security )?(?:findings|issues|vulnerabilities|problems|risks)\b|NO-FINDINGS|\bthat (?:this|it|the)(?: (?:code|change|diff|resource|file|plan))? is (?:safe|secure|compliant|benign|fine)\b)/i,
  },
  {
    kind: 'reviewer_instruction',
    re: /\b(?:mark|classify|rate|treat|consider|label) (?:this|it|the)(?: (?:code|change|diff|resource|file|plan|finding)s?)? as (?:safe|secure|compliant|benign|low[- ]risk|info|a false positive)\b/i,
  },
  {
    kind: 'reviewer_instruction',
    re: /\b(?:do not|don't|never|must not)\s+(?:report|flag|mention|raise)\b[^\n]{0,30}?\b(?:findings?|issues?|vulnerabilit(?:y|ies)|problems?|risks?|this (?:resource|file|change|bucket|rule))\b/i,
  },
  {
    kind: 'reviewer_instruction',
    re: new RegExp(
      String.raw`\b(?:dear|attention|hey|hi|hello|note to(?: the)?|message (?:to|for)(?: the)?|instructions? (?:to|for)(?: the)?)\s+${ADDRESSEE}\b`,
      'i',
    ),
  },
  { kind: 'reviewer_instruction', re: new RegExp(String.raw`\bif you are an? ${ADDRESSEE}\b`, 'i') },
  // Role changes.
  {
    kind: 'role_change',
    re: /\byou are (?:now|no longer)\b|\bfrom now on,? you\b|\bpretend (?:to be|that you are|you are)\b|\b(?:enter|enable|activate)\s+(?:developer|god|dan|jailbreak|unrestricted)\s+mode\b/i,
  },
  {
    kind: 'role_change',
    re: new RegExp(
      String.raw`\b(?:act|behave|respond) as (?:an? |the )?(?:unrestricted |jailbroken |different |new )?(?:${ADDRESSEE}|system|administrator|dan)\b`,
      'i',
    ),
  },
  { kind: 'role_change', re: /\b(?:new|updated|revised|real|actual) (?:system )?(?:instructions|prompt|task|role)\s*:/i },
  // Fake system / chat-template text.
  { kind: 'fake_system_text', re: /<\|(?:im_start|im_end|system|endoftext|assistant|user)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:system|assistant|instructions?)>/i },
  // A line posing as a chat turn: `SYSTEM: ...`, `# System prompt: ...` (capitalised, unlike YAML keys such as `system:masters`).
  {
    kind: 'fake_system_text',
    re: /^[\s#*>/;+-]*(?:SYSTEM|System|ASSISTANT|Assistant|DEVELOPER|Developer)(?: (?:PROMPT|Prompt|prompt|MESSAGE|Message|message|NOTE|Note|note|OVERRIDE|Override|override))?\s*:\s+\S/m,
  },
  {
    kind: 'fake_system_text',
    re: /\b(?:BEGIN|END) (?:SYSTEM|ADMIN|DEVELOPER) (?:PROMPT|MESSAGE|INSTRUCTIONS?)\b|\b(?:RULESET|UNTRUSTED|UNIT_BODY|UNIT|CALIBRATION)_(?:BEGIN|END)\b|\bend of (?:the )?(?:untrusted|user) (?:data|input|content)\b/i,
  },
];

/** A base64 run long enough to carry a sentence. */
const BASE64_RUN = /[A-Za-z0-9+/]{32,}={0,2}/g;

function visible(text: string): string {
  return text.replace(HIDDEN_ALL, (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
}

function excerptOf(line: string, index: number): string {
  const start = Math.max(0, index - 30);
  return visible(line.slice(start, start + 120)).slice(0, 120);
}

/** The text base64 `run` decodes to, when it decodes to mostly printable text; else null. */
function decodedText(run: string): string | null {
  const bytes = Buffer.from(run, 'base64');
  const text = bytes.toString('utf8');
  if (text.length < 16) return null;
  const printable = [...text].filter((c) => /[\p{L}\p{N}\p{P}\p{Zs}\n\t]/u.test(c)).length;
  return printable / [...text].length >= 0.9 ? text : null;
}

function patternHit(text: string): { kind: InjectionKind; index: number } | null {
  for (const pattern of PATTERNS) {
    const match = pattern.re.exec(text);
    if (match) return { kind: pattern.kind, index: match.index };
  }
  return null;
}

/**
 * Scans `text` line by line. Returns every hit (at most one per line, the first kind found in
 * the order hidden Unicode, instruction patterns, encoded payload); [] for clean text. Pure.
 */
export function scanForInjection(text: string): InjectionHit[] {
  const hits: InjectionHit[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const hidden = HIDDEN.exec(i === 0 ? line.replace(/^\uFEFF/, '') : line);
    if (hidden) {
      hits.push({ kind: 'hidden_unicode', line: i + 1, excerpt: excerptOf(line, hidden.index) });
      continue;
    }
    // Instructions may be split by spacing tricks; compare on a whitespace-normalised form.
    const found = patternHit(line.normalize('NFKC').replace(/\s+/g, ' '));
    if (found) {
      hits.push({ kind: found.kind, line: i + 1, excerpt: excerptOf(line, found.index) });
      continue;
    }
    for (const match of line.matchAll(BASE64_RUN)) {
      const decoded = decodedText(match[0]);
      if (decoded && (HIDDEN.test(decoded) || patternHit(decoded.replace(/\s+/g, ' ')))) {
        hits.push({ kind: 'encoded_payload', line: i + 1, excerpt: excerptOf(line, match.index ?? 0) });
        break;
      }
    }
  }
  return hits;
}

/** One paragraph describing hits for a finding or a comment: kinds and the first excerpts. */
export function describeHits(hits: readonly InjectionHit[]): string {
  const kinds = [...new Set(hits.map((h) => h.kind.replace(/_/g, ' ')))].join(', ');
  const examples = hits
    .slice(0, 3)
    .map((h) => `line ${h.line}: ${h.excerpt}`)
    .join('; ');
  return `Possible prompt injection (${kinds}) — ${examples}`;
}
