/**
 * Required literals of a `matches()` pattern: strings of which every match contains at least
 * one, read from the pattern's text alone, the way RE2's own prefilter does (re2/prefilter.cc).
 * A line holding none of them cannot match, so a check can say "no line matches" without
 * compiling the pattern or running RE2 over every line (docs/decisions.md "Checks cheap before
 * CEL"). The reading is conservative: a pattern this parser does not fully understand (a
 * case-insensitive flag, `\p`, `\Q…\E`, hex escapes, backreferences, non-ASCII text, an
 * unusual repetition) gets no literals, and is always run. It never decides that a pattern is
 * valid: an invalid pattern still fails when RE2 compiles it.
 */

/** What a sub-pattern is known to match. */
interface Info {
  /** Every match is one of these strings (null: unknown or too many). */
  readonly exact: readonly string[] | null;
  /** Every match contains one of these strings (null: nothing known). */
  readonly required: readonly string[] | null;
}

/** A literal set larger than this is dropped (a weaker but still sound reading). */
const MAX_SET = 64;
const ANY: Info = { exact: null, required: null };
const EMPTY: Info = { exact: [''], required: null };

class Unsupported extends Error {}

/** The pattern's required literals (see the module comment); null when none are known. */
export function requiredLiterals(pattern: string): readonly string[] | null {
  // Non-ASCII text: code points against UTF-16 units; not worth the care.
  if (pattern.length > 4096 || /[^\x20-\x7e]/.test(pattern)) return null;
  try {
    const parser = new PatternParser(pattern);
    const info = parser.parse();
    const set = asRequired(info);
    return set === null ? null : minimal(set);
  } catch (error) {
    if (error instanceof Unsupported) return null;
    throw error;
  }
}

/**
 * A line test that is false only for lines the pattern cannot match (RE2 `find` semantics,
 * unanchored); null when the pattern has no known required literals.
 */
export function patternPrefilter(pattern: string): ((line: string) => boolean) | null {
  const literals = requiredLiterals(pattern);
  if (literals === null) return null;
  return (line) => {
    for (const literal of literals) if (line.includes(literal)) return true;
    return false;
  };
}

/** The info as a required set: its exact strings when none is empty, else its required ones. */
function asRequired(info: Info): readonly string[] | null {
  if (info.exact !== null && !info.exact.includes('')) return info.exact;
  if (info.required !== null && !info.required.includes('')) return info.required;
  return null;
}

/** Drops strings that contain another string of the set (the shorter one already admits the line). */
function minimal(set: readonly string[]): string[] {
  const unique = [...new Set(set)];
  return unique.filter((s) => !unique.some((t) => t !== s && s.includes(t)));
}

/** The better of two required sets: the one whose shortest string is longer, then the smaller. */
function better(a: readonly string[] | null, b: readonly string[] | null): readonly string[] | null {
  if (a === null) return b;
  if (b === null) return a;
  const shortest = (s: readonly string[]) => Math.min(...s.map((x) => x.length));
  if (shortest(a) !== shortest(b)) return shortest(a) > shortest(b) ? a : b;
  return a.length <= b.length ? a : b;
}

function product(a: readonly string[], b: readonly string[]): string[] | null {
  if (a.length * b.length > MAX_SET) return null;
  return a.flatMap((x) => b.map((y) => x + y));
}

function union(sets: readonly (readonly string[])[]): string[] | null {
  const all = [...new Set(sets.flat())];
  return all.length > MAX_SET ? null : all;
}

/** Info of a sequence: runs of exact parts multiply out; the best required set of any part stands. */
function concat(parts: readonly Info[]): Info {
  let run: readonly string[] | null = [''];
  let required: readonly string[] | null = null;
  let allExact = true;
  for (const part of parts) {
    if (part.exact !== null && run !== null) {
      const next = product(run, part.exact);
      if (next !== null) {
        run = next;
        continue;
      }
    }
    // The run ends here: what it matched is a contiguous piece of every match.
    allExact = false;
    if (run !== null && !run.includes('')) required = better(required, run);
    required = better(required, asRequired(part));
    run = part.exact;
  }
  if (allExact) return { exact: run, required: null };
  if (run !== null && !run.includes('')) required = better(required, run);
  return { exact: null, required };
}

function alternate(branches: readonly Info[]): Info {
  if (branches.length === 1) return branches[0];
  const exacts = branches.map((b) => b.exact);
  if (exacts.every((e) => e !== null)) {
    const exact = union(exacts as string[][]);
    if (exact !== null) return { exact, required: null };
  }
  const required = branches.map(asRequired);
  if (required.some((r) => r === null)) return ANY;
  return { exact: null, required: union(required as string[][]) };
}

function repeat(info: Info, min: number, max: number | null): Info {
  if (min === 0) {
    // `x?`: the empty string or one of x's strings.
    if (max === 1 && info.exact !== null) return { exact: union([[''], info.exact]), required: null };
    return ANY;
  }
  if (max === min && info.exact !== null) {
    let exact: readonly string[] | null = [''];
    for (let i = 0; i < min && exact !== null; i += 1) exact = product(exact, info.exact);
    if (exact !== null) return { exact, required: null };
  }
  // At least one copy of the repeated part is in every match.
  return { exact: null, required: asRequired(info) };
}

const PUNCTUATION = /^[!-/:-@[-`{-~]$/;
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W']);
const EMPTY_ESCAPES = new Set(['b', 'B', 'A', 'z']);
/** `\n`, `\t` and the like: control characters, read as no literal (a line never holds `\n`). */
const CONTROL_ESCAPES = new Set(['n', 't', 'r', 'f', 'v', 'a']);
/** A class of at most this many literal characters is read as their set (`[Pp]`). */
const SMALL_CLASS = 8;
/** RE2's largest repetition count. */
const MAX_REPEAT = 1000;

/**
 * A recursive-descent reader of RE2 syntax (https://github.com/google/re2/wiki/Syntax) that
 * throws Unsupported at anything outside the subset it reads with certainty.
 */
class PatternParser {
  #at = 0;
  constructor(private readonly text: string) {}

  parse(): Info {
    const info = this.#alternation();
    if (this.#at !== this.text.length) throw new Unsupported(); // an unbalanced `)`
    return info;
  }

  #peek(): string | undefined {
    return this.text[this.#at];
  }

  #alternation(): Info {
    const branches = [this.#sequence()];
    while (this.#peek() === '|') {
      this.#at += 1;
      branches.push(this.#sequence());
    }
    return alternate(branches);
  }

  #sequence(): Info {
    const parts: Info[] = [];
    for (let c = this.#peek(); c !== undefined && c !== '|' && c !== ')'; c = this.#peek()) {
      const { info, repeatable } = this.#atom();
      parts.push(this.#quantified(info, repeatable));
    }
    return parts.length === 0 ? EMPTY : concat(parts);
  }

  /** The atom's repetitions, if a quantifier follows (one only: RE2 refuses `a**`). */
  #quantified(info: Info, repeatable: boolean): Info {
    const c = this.#peek();
    let bounds: [number, number | null] | null = null;
    if (c === '*') bounds = [0, null];
    else if (c === '+') bounds = [1, null];
    else if (c === '?') bounds = [0, 1];
    else if (c === '{') bounds = this.#braces();
    if (bounds === null) return info;
    if (!repeatable) throw new Unsupported();
    if (c !== '{') this.#at += 1;
    if (this.#peek() === '?') this.#at += 1; // non-greedy: the same strings
    const next = this.#peek();
    if (next === '*' || next === '+' || next === '?' || next === '{') throw new Unsupported();
    return repeat(info, bounds[0], bounds[1]);
  }

  /** `{n}`, `{n,}`, `{n,m}` (consumed); anything else starting with `{` is unsupported. */
  #braces(): [number, number | null] {
    const m = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(this.text.slice(this.#at));
    if (!m) throw new Unsupported(); // RE2 reads some of these as a literal `{`: not worth it
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === '' ? null : Number(m[3]);
    if (min > MAX_REPEAT || (max !== null && (max > MAX_REPEAT || max < min))) throw new Unsupported();
    this.#at += m[0].length;
    return [min, max];
  }

  #atom(): { info: Info; repeatable: boolean } {
    const c = this.text[this.#at];
    this.#at += 1;
    switch (c) {
      case '(':
        return { info: this.#group(), repeatable: true };
      case '[':
        return { info: this.#charClass(), repeatable: true };
      case '.':
        return { info: ANY, repeatable: true };
      case '^':
      case '$':
        return { info: EMPTY, repeatable: false };
      case '\\':
        return this.#escape();
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
      case ']':
        throw new Unsupported(); // a quantifier with nothing to repeat, or a stray bracket
      default:
        return { info: { exact: [c], required: null }, repeatable: true };
    }
  }

  #group(): Info {
    let caseInsensitive = false;
    if (this.#peek() === '?') {
      const m = /^\?(?:P?<[A-Za-z_][A-Za-z0-9_]*>|([imsU-]*):)/.exec(this.text.slice(this.#at));
      if (!m) throw new Unsupported(); // `(?i)` and other flag settings that reach past the group
      caseInsensitive = (m[1] ?? '').split('-')[0].includes('i');
      this.#at += m[0].length;
    }
    const info = this.#alternation();
    if (this.#peek() !== ')') throw new Unsupported();
    this.#at += 1;
    return caseInsensitive ? ANY : info;
  }

  #escape(): { info: Info; repeatable: boolean } {
    const c = this.text[this.#at];
    this.#at += 1;
    if (c === undefined) throw new Unsupported();
    if (CLASS_ESCAPES.has(c) || CONTROL_ESCAPES.has(c)) return { info: ANY, repeatable: true };
    if (EMPTY_ESCAPES.has(c)) return { info: EMPTY, repeatable: false };
    if (PUNCTUATION.test(c)) return { info: { exact: [c], required: null }, repeatable: true };
    throw new Unsupported(); // \p, \Q, \x, \C, digits, ...
  }

  /** `[...]`: a small set of literal characters is their exact set; any other class is ANY. */
  #charClass(): Info {
    let negated = false;
    if (this.#peek() === '^') {
      negated = true;
      this.#at += 1;
    }
    const chars = new Set<string>();
    let wide = false;
    for (let first = true; ; first = false) {
      const c = this.text[this.#at];
      if (c === undefined) throw new Unsupported();
      if (c === ']' && !first) {
        this.#at += 1;
        break;
      }
      if (c === '[' && this.text[this.#at + 1] === ':') {
        const m = /^\[:\^?[a-z]+:\]/.exec(this.text.slice(this.#at));
        if (!m) throw new Unsupported();
        this.#at += m[0].length;
        wide = true;
        continue;
      }
      const lo = this.#classChar();
      if (lo === null) {
        wide = true;
        continue;
      }
      if (this.text[this.#at] === '-' && this.text[this.#at + 1] !== ']' && this.text[this.#at + 1] !== undefined) {
        this.#at += 1;
        const hi = this.#classChar();
        if (hi === null || hi.charCodeAt(0) < lo.charCodeAt(0)) throw new Unsupported();
        for (let code = lo.charCodeAt(0); code <= hi.charCodeAt(0) && chars.size <= SMALL_CLASS; code += 1) chars.add(String.fromCharCode(code));
        if (chars.size > SMALL_CLASS) wide = true;
        continue;
      }
      chars.add(lo);
    }
    if (negated || wide || chars.size === 0 || chars.size > SMALL_CLASS) return ANY;
    return { exact: [...chars], required: null };
  }

  /** One character of a class (consumed); null for a class or control escape (`\d`, `\t`). */
  #classChar(): string | null {
    const c = this.text[this.#at];
    this.#at += 1;
    if (c !== '\\') return c;
    const e = this.text[this.#at];
    this.#at += 1;
    if (e === undefined) throw new Unsupported();
    if (CLASS_ESCAPES.has(e) || CONTROL_ESCAPES.has(e)) return null;
    if (PUNCTUATION.test(e)) return e;
    throw new Unsupported();
  }
}
