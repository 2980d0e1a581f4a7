import { describe, expect, it } from 'vitest';
import { tryLinearPattern } from '../core/linear-regex';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules } from '../rules/ruleset';
import { patternPrefilter, requiredLiterals } from './pattern-prefilter';

/** A seeded generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random RE2 pattern over a small alphabet, so that random lines match it often. */
function randomPattern(next: () => number, depth = 0): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const atom = (): string => {
    const r = next();
    if (depth < 3 && r < 0.2) return `(${pick(['', '?:', '?i:', '?P<g>'])}${randomPattern(next, depth + 1)})`;
    if (r < 0.35) return pick(['[ab]', '[^a]', '[a-c]', '.', '\\s', '\\w', '[Aa]', '[-a]', '[]a]']);
    if (r < 0.4) return pick(['^', '$', '\\b']);
    if (r < 0.45) return pick(['\\.', '\\-', '\\(']);
    return pick(['a', 'b', 'c', 'A', ' ', '-', '.']).replace('.', 'ab');
  };
  const quantifier = () => pick(['', '', '', '*', '+', '?', '{2}', '{1,2}', '{0,1}', '{2,}', '*?', '+?']);
  const branch = () => {
    let out = '';
    for (let n = 1 + Math.floor(next() * 4); n > 0; n -= 1) {
      const a = atom();
      out += /^(?:\^|\$|\\b)$/.test(a) ? a : a + quantifier();
    }
    return out;
  };
  const branches = [branch()];
  while (next() < 0.3) branches.push(branch());
  return branches.join('|');
}

function randomLine(next: () => number): string {
  const alphabet = ['a', 'b', 'c', 'A', 'B', ' ', '-', '.', '(', 'x'];
  return Array.from({ length: Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

/** Every `matches("…")` pattern of the shipped rules. */
function shippedPatterns(): string[] {
  const checks = ['terraform', 'dockerfile', 'github-actions', 'kubernetes', 'cloudformation'].flatMap((a) =>
    listBuiltinRuleVariants(a).flatMap((v) => parseRules(loadBuiltinRuleset(a, v)).flatMap((r) => (r.check ? [r.check] : []))),
  );
  return [...new Set(checks.flatMap((c) => [...c.matchAll(/\.matches\(\s*("(?:[^"\\]|\\.)*")\s*\)/g)].map((m) => JSON.parse(m[1]) as string)))];
}

describe('required literals of a matches() pattern', () => {
  it('never rejects a line RE2 matches: 1,000 random patterns against 60 random lines each', () => {
    const next = random(20261127);
    let matched = 0;
    let filtered = 0;
    for (let p = 0; p < 1000; p += 1) {
      const pattern = randomPattern(next);
      const re2 = tryLinearPattern(pattern);
      const prefilter = patternPrefilter(pattern);
      if (!re2 || !prefilter) continue;
      filtered += 1;
      for (let l = 0; l < 60; l += 1) {
        const line = randomLine(next);
        if (!re2.test(line)) continue;
        matched += 1;
        expect(prefilter(line), `${JSON.stringify(pattern)} on ${JSON.stringify(line)}`).toBe(true);
      }
    }
    // The generator exercises the reader, not only its refusals.
    expect(filtered).toBeGreaterThan(500);
    expect(matched).toBeGreaterThan(3000);
  });

  it('reads the shipped patterns, and passes every line that holds a match of them', () => {
    const patterns = shippedPatterns();
    expect(patterns.length).toBeGreaterThan(30);
    const read = patterns.filter((p) => requiredLiterals(p) !== null);
    expect(read.length / patterns.length).toBeGreaterThan(0.8);
    // Lines made to match: each pattern's own examples in the rules' tests are elsewhere; here the
    // literal set must hold a string of each alternative (checked on lines that match).
    const examples = [
      [
        '\\b[A-Za-z_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_KEY|ACCESS_KEY|[Pp]assword)=(?:\\(sensitive value\\)|[\'"]?[^\'"$\\s(]{3,})',
        'export DB_Password=hunter22',
      ],
      ['(?:[Pp]assword|[Ss]ecret|[Tt]oken|[Aa]pi[_-]?[Kk]ey|[Pp]rivate[_-]?[Kk]ey|/credentials/)', 'x Api-Key y'],
      ['^\\+?\\s*source\\s*=\\s*"(?:git::|github\\.com/|git@)', '+ source = "git::https://x"'],
    ] as const;
    for (const [pattern, line] of examples) {
      expect(tryLinearPattern(pattern)!.test(line)).toBe(true);
      expect(patternPrefilter(pattern)!(line)).toBe(true);
    }
  });

  it('gives no literals where a match needs none, or where the reading would be unsure', () => {
    for (const pattern of ['a*', 'x|', '(abc)?', '^$', '.*', '[a-z]+', '(?i)secret', 'a\\pLb', '\\Qa.b\\E', '(a)\\1', 'a{,3}', 'a**', 'é', '\\x41'])
      expect(requiredLiterals(pattern), pattern).toBeNull();
    // Case-insensitive parts say nothing; the rest still does.
    expect(requiredLiterals('(?i:token)')).toBeNull();
    expect(requiredLiterals('secrets\\.(?i:github_token)')).toEqual(['secrets.']);
    expect(patternPrefilter('(?-i:abc)')!('xabcx')).toBe(true);
  });

  it('reads literals, classes, optional parts and alternatives', () => {
    expect(requiredLiterals('api_?key')).toEqual(['apikey', 'api_key']);
    expect(requiredLiterals('[Pp]assword')).toEqual(['Password', 'password']);
    expect(requiredLiterals('(abc)?def')).toEqual(['def']);
    expect(requiredLiterals('x{3}')).toEqual(['xxx']);
    expect(requiredLiterals('github\\.head_ref|refs/pull/')).toEqual(['github.head_ref', 'refs/pull/']);
    // A shorter literal admits every line a longer one containing it would.
    expect(requiredLiterals('insecure|pm_tls_insecure')).toEqual(['insecure']);
    const test = patternPrefilter('curl[^|]*\\|\\s*sh')!;
    expect(test('RUN curl https://x | sh')).toBe(true);
    expect(test('RUN wget https://x | sh')).toBe(false);
  });
});
