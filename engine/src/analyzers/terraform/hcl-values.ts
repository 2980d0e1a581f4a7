/**
 * Values of a Terraform configuration block (`.tf` source, or the post-image of a block in a
 * diff) in the shape of a plan unit's `metadata.values` (plan-json.ts), so the deterministic
 * checks (checks/run-checks.ts) judge configuration as they judge plans (docs/decisions.md
 * "Checks on HCL").
 *
 * The text is parsed by HashiCorp's own HCL parser (hashicorp/hcl, compiled to WebAssembly and
 * shipped by `@cdktf/hcl2json`), never by a pattern of ours. What it gives, and what we make of it:
 * - literal attributes (strings, numbers, booleans, lists, maps) are known values;
 * - a nested block is a list of objects, as in plan JSON (`ingress = [{from_port = 22, ...}]`);
 * - anything the configuration computes (a reference `var.x`, a function call `jsonencode(...)`,
 *   a template `"arn:${local.p}"`, a `for` expression) is the plan's unknown marker
 *   "(known after apply)": an unknown value compares equal to no literal, so it never fails a
 *   check; a `dynamic "ingress"` block makes `ingress` unknown;
 * - strings holding JSON (a heredoc policy) are parsed, as plan-values.ts parses them;
 * - meta-arguments (`count`, `for_each`, `depends_on`, `provider`, `lifecycle`, `provisioner`,
 *   `connection`) are not resource values and are dropped; an omitted attribute is absent (a
 *   plan would show the provider's default: a check that fires on absence states the default).
 *
 * Secrets: the text is masked first (common/secrets.ts maskTextSecrets, as the unit body is), so
 * a credential literal is the sensitive marker "(sensitive value)" here too.
 *
 * Cost: the parser is initialised once per process (or worker thread), synchronously, on the first
 * configuration unit (about 1 s of CPU and 65 MB of memory: bench/hcl-values.bench.ts); a block then
 * parses in a few milliseconds. Ingest is synchronous (core/unit.ts `Analyzer.ingest`), hence the
 * synchronous start of the parser's WebAssembly module instead of the package's asynchronous
 * `parse`. When the parser cannot start or a block does not parse (partial text, a syntax error),
 * the unit carries no values and the checks that read values are skipped, as before.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { maskTextSecrets, SECRET_MARKER } from '../common/secrets';
import { isRecord, plainValue, toPlanValue, UNKNOWN } from './plan-values';

/**
 * Block kinds whose units carry values: managed resources only. A `data` block reads an existing
 * object (its unit type is the resource type, so a resource's checks would judge what the
 * configuration does not create).
 */
const VALUED_KINDS = new Set(['resource']);

/** Meta-arguments of a resource block (Terraform language "Meta-Arguments"): not resource values. */
const META_ARGUMENTS = new Set(['count', 'for_each', 'depends_on', 'provider', 'lifecycle', 'provisioner', 'connection']);

/** Larger texts are not parsed (the parser's cost grows with the text): no values, checks skipped. */
const MAX_TEXT_CHARS = 256 * 1024;

/** The parts of the package's Go runtime (wasm_exec.js) and of WebAssembly used here. */
interface GoRuntime {
  readonly importObject: object;
  run(instance: object): Promise<void>;
}
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object;
  readonly Instance: new (module: object, imports: object) => object;
}

type ParseFn = (filename: string, text: string, done: (err: unknown, json?: string) => void) => void;

let parser: ParseFn | null | undefined;

/**
 * Starts the parser once (synchronously) and returns its `parse` function; null when it cannot
 * start (the package or its WebAssembly module missing, a runtime without WebAssembly).
 */
function hclParser(): ParseFn | null {
  if (parser !== undefined) return parser;
  parser = null;
  try {
    const require = createRequire(import.meta.url);
    const root = dirname(require.resolve('@cdktf/hcl2json/package.json'));
    // The package's Go runtime glue: defines globalThis.Go (and the Node globals Go expects).
    require(join(root, 'wasm', 'bridge_wasm_exec.js'));
    // Node's WebAssembly global; @types/node declares no types for it.
    const host = globalThis as unknown as { Go: new () => GoRuntime; WebAssembly: WasmApi };
    const go = new host.Go();
    const module = new host.WebAssembly.Module(gunzipSync(readFileSync(join(root, 'main.wasm.gz'))));
    const instance = new host.WebAssembly.Instance(module, go.importObject);
    // The Go program registers its functions on this object when it starts: `run` executes its
    // `main` synchronously until the program waits for calls, before its first await.
    const exports: Record<string, unknown> = {};
    (globalThis as Record<string, unknown>).__parse_terraform_config_wasm__ = exports;
    void go.run(instance).catch(() => {
      parser = null;
    });
    const parse = exports.parse;
    if (typeof parse === 'function') parser = parse as ParseFn;
  } catch {
    parser = null;
  }
  return parser;
}

/** The parser's JSON for `text`, or null when it does not parse (or the parser is unavailable). */
function parseHcl(text: string): Record<string, unknown> | null {
  if (text.length > MAX_TEXT_CHARS) return null;
  const parse = hclParser();
  if (!parse) return null;
  let out: Record<string, unknown> | null = null;
  try {
    // The Go function answers synchronously (it starts no goroutine that waits).
    parse('block.tf', text, (err, json) => {
      if (err || typeof json !== 'string') return;
      const parsed: unknown = JSON.parse(json);
      if (isRecord(parsed)) out = parsed;
    });
  } catch {
    return null;
  }
  return out;
}

/** One top-level block of configuration text: its kind (`resource`), labels and text. */
export interface HclBlockText {
  readonly kind: string;
  readonly labels: readonly string[];
  readonly text: string;
}

/**
 * Values of each block, in order, in the shape of a plan unit's `metadata.values` (see the file
 * comment); undefined for a block whose kind carries no values (`data`, `variable`, `module`, ...), that
 * does not parse, or whose address is given twice. The blocks are parsed together (one call: the
 * parser's cost is mostly per call), and one by one only when the whole does not parse. Never throws.
 */
export function hclBlocksValues(blocks: readonly HclBlockText[]): (Record<string, unknown> | undefined)[] {
  const valued = new Set(blocks.filter((b) => VALUED_KINDS.has(b.kind) && b.labels.length === 2));
  if (valued.size === 0) return blocks.map(() => undefined);
  const whole = parseHcl(quoteMarkers(maskTextSecrets([...valued].map((b) => b.text).join('\n')).body));
  return blocks.map((b) => {
    if (!valued.has(b)) return undefined;
    const parsed = whole ?? parseHcl(quoteMarkers(maskTextSecrets(b.text).body));
    return parsed ? valuesIn(parsed, b) : undefined;
  });
}

/** The values of block `b` in the parser's JSON, or undefined when it is not there exactly once. */
function valuesIn(parsed: Record<string, unknown>, b: HclBlockText): Record<string, unknown> | undefined {
  const byType = parsed[b.kind];
  const byName = isRecord(byType) ? byType[b.labels[0]] : undefined;
  const bodies = isRecord(byName) ? byName[b.labels[1]] : undefined;
  if (!Array.isArray(bodies) || bodies.length !== 1 || !isRecord(bodies[0])) return undefined;
  const values = plainValue(toPlanValue(blockValues(bodies[0], META_ARGUMENTS)));
  return isRecord(values) ? values : undefined;
}

/**
 * A block body with every expression (`${...}`, `%{...}` in the parser's output) as UNKNOWN and
 * each `dynamic "x"` block as an unknown `x`, at any depth; `meta` names keys to drop (the
 * resource's meta-arguments, top level only).
 */
function blockValues(body: Record<string, unknown>, meta: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    if (meta.has(key)) continue;
    if (key === 'dynamic' && isRecord(value)) {
      for (const name of Object.keys(value)) out[name] = UNKNOWN;
      continue;
    }
    Object.defineProperty(out, key, { value: known(value), enumerable: true, writable: true, configurable: true }); // a `__proto__` key stays a key
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();

function known(value: unknown): unknown {
  if (typeof value === 'string') return /[$%]\{/.test(value) ? UNKNOWN : value;
  if (Array.isArray(value)) return value.map(known);
  return isRecord(value) ? blockValues(value, NONE) : value;
}

/**
 * The masked text as HCL: maskTextSecrets replaces a quoted literal by the bare marker
 * `(sensitive value)`, which is no HCL expression; outside a string it is quoted again.
 */
function quoteMarkers(text: string): string {
  if (!text.includes(SECRET_MARKER)) return text;
  return text
    .split('\n')
    .map((line) => {
      let out = '';
      let from = 0;
      for (let at = line.indexOf(SECRET_MARKER); at >= 0; at = line.indexOf(SECRET_MARKER, at + SECRET_MARKER.length)) {
        const quotes = (line.slice(0, at).match(/(?<!\\)"/g) ?? []).length;
        if (quotes % 2 === 1) continue;
        out += `${line.slice(from, at)}"${SECRET_MARKER}"`;
        from = at + SECRET_MARKER.length;
      }
      return out + line.slice(from);
    })
    .join('\n');
}
