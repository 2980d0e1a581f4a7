/**
 * A Dockerfile → one unit per build stage (analysis-api.md "Analysis unit").
 *
 * - A stage runs from its `FROM` line to the line before the next `FROM` (trailing blank and
 *   comment lines go to the next stage, where they usually belong).
 * - Unit: type `dockerfile_stage`, name = `<path>#<stage>` (`<stage>` alone without a path), the
 *   stage being the `AS` alias or `stage-<n>` (0-based, as `--from=<n>` counts), action `create`.
 * - Body: `# file:` line, then the global `ARG` lines before the first `FROM` (they parameterise
 *   every `FROM`, e.g. the base image tag), then the stage's source lines verbatim.
 * - `metadata.values` (for deterministic checks; not hashed): the global `ARG`s and the stage's
 *   instructions, in order, as `{instruction, args}` (upper-cased keyword, arguments joined).
 * - Secrets are masked in the body and the values before the unit exists (../common/mask-unit.ts):
 *   a credential-named `ENV`/`ARG` literal (`ENV DB_PASSWORD=x`, the legacy `ENV DB_PASSWORD x`),
 *   credential-named assignments and credential shapes inside `RUN` scripts.
 */
import { ValidationError } from '../../core/errors';
import type { AnalysisUnit } from '../../core/unit';
import { maskUnitSecrets, secretsMetadata } from '../common/mask-unit';
import { isCredentialKey, isSecretLiteral, SECRET_MARKER } from '../common/secrets';
import { fileHeader, makeUnit } from '../common/unit';
import { readInstructions, type DockerfileStructure, type Instruction } from './instructions';

export const STAGE_TYPE = 'dockerfile_stage';

interface StageHead {
  readonly image: string;
  readonly alias: string | null;
  readonly platform: string | null;
}

/** `FROM [--platform=p] image [AS alias]` → its parts. */
export function parseFrom(args: string): StageHead {
  const words = args.split(/\s+/).filter((w) => w !== '');
  let platform: string | null = null;
  while (words[0]?.startsWith('--')) {
    const flag = words.shift()!;
    if (flag.startsWith('--platform=')) platform = flag.slice('--platform='.length);
  }
  const image = words[0] ?? '';
  const alias = words.length >= 3 && words[1].toUpperCase() === 'AS' ? words[2] : null;
  return { image, alias, platform };
}

/**
 * Units of one Dockerfile. Throws ValidationError when the text has no `FROM`, an instruction
 * before the first `FROM` other than `ARG`, or an unknown instruction (Docker refuses those).
 */
export function stageUnits(text: string, path: string | undefined, analyzer: string): AnalysisUnit[] {
  const structure = checkedStructure(text);
  const { lines, instructions } = structure;
  const fromIndexes = instructions.flatMap((ins, i) => (ins.keyword === 'FROM' ? [i] : []));
  const globalInstructions = instructions.slice(0, fromIndexes[0]);
  const globalArgs = globalInstructions.flatMap((ins) => lines.slice(ins.startLine - 1, ins.endLine));
  return fromIndexes.map((first, n) => {
    const next = fromIndexes[n + 1];
    const own = instructions.slice(first, next);
    const start = own[0].startLine;
    const end = own[own.length - 1].endLine;
    const head = parseFrom(own[0].args);
    const stage = head.alias ?? `stage-${n}`;
    const context = globalArgs.length > 0 ? ['# global ARGs (declared before the first FROM)', ...globalArgs] : [];
    const source = [...fileHeader(path), ...context, `# stage ${n + 1} of ${fromIndexes.length}`, ...lines.slice(start - 1, end)].join('\n');
    const stageInstructions = [...globalInstructions, ...own];
    const legacy = stageInstructions.map(legacyEnvPair);
    const { body, values, secrets } = maskUnitSecrets(
      source,
      stageInstructions.map((ins, i) => ({ instruction: ins.keyword, args: legacy[i]?.masked ?? ins.args })),
      { extra: legacy.flatMap((p) => (p ? [{ [p.name]: p.value }] : [])) },
    );
    const name = path ? `${path}#${stage}` : stage;
    return makeUnit(
      analyzer,
      { type: STAGE_TYPE, name, action: 'create', body },
      {
        source: 'dockerfile',
        path: path ?? null,
        stage_index: n,
        stage_name: head.alias,
        base_image: head.image,
        platform: head.platform,
        final_stage: n === fromIndexes.length - 1,
        start_line: start,
        end_line: end,
        values,
        ...secretsMetadata(secrets),
      },
    );
  });
}

/**
 * The legacy `ENV NAME value` form (one variable, the rest of the line its value; Dockerfile
 * reference "ENV"), whose value no `NAME=value` detector sees: its name, value and masked
 * arguments when the name is credential-named and the value a literal; else null.
 */
function legacyEnvPair(ins: Instruction): { name: string; value: string; masked: string } | null {
  if (ins.keyword !== 'ENV') return null;
  const m = /^([A-Za-z_][A-Za-z0-9_]*)\s+(.+)$/.exec(ins.args);
  if (!m || m[1].includes('=') || !isCredentialKey(m[1])) return null;
  const value = /^(["'])(.*)\1$/.exec(m[2].trim())?.[2] ?? m[2].trim();
  if (value.startsWith('$') || !isSecretLiteral(value, m[1])) return null;
  return { name: m[1], value, masked: `${m[1]} ${SECRET_MARKER}` };
}

function checkedStructure(text: string): DockerfileStructure {
  const structure = readInstructions(text);
  if (structure.unknownAt !== null) {
    throw new ValidationError(`The input is not a Dockerfile: unknown instruction at line ${structure.unknownAt}`);
  }
  const first = structure.instructions.find((ins: Instruction) => ins.keyword !== 'ARG');
  if (first?.keyword !== 'FROM') {
    throw new ValidationError('The input is not a Dockerfile: the first instruction other than ARG must be FROM');
  }
  return structure;
}

/** Sniff hook: a text that reads as a Dockerfile (see `stageUnits`) → 0.85 (0.6 for a lone FROM); else null. */
export function sniffDockerfile(content: string): { kind: string; confidence: number } | null {
  if (!/^\s*FROM\s+\S/im.test(content)) return null;
  try {
    const { instructions } = checkedStructure(content);
    return { kind: 'dockerfile', confidence: instructions.length > 1 ? 0.85 : 0.6 };
  } catch {
    return null;
  }
}
