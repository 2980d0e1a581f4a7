/**
 * Which catalogue models can run an analysis for this organization, and what an analysis error
 * the user can fix means (docs/decisions.md "Checks first, a model on top"). The server runs
 * the deterministic checks alone when a request names no model (analysis-api.md "Server-side
 * analysis", `llm_backend` omitted); a model needs a key: the org's stored credential (GET
 * /orgs/{org_id}/llm-credentials, admins only), a key given for the run, or, for Ollama, a
 * local Ollama that has the model (the desktop's discovery, GET /api/desktop/ollama).
 */
import { ApiError } from './client';
import type { AllowedModel } from './types';

/** `usable`: a key is known to exist; `missing`: known not to; `unknown`: the page cannot tell (a member cannot list credentials; a server's Ollama). */
export type ModelReadiness = 'usable' | 'missing' | 'unknown';

/** What the page knows about the org's keys and the local Ollama (null = cannot tell). */
export interface ModelFacts {
  /** Providers with a stored credential, or null when the caller may not list them. */
  readonly storedProviders: readonly string[] | null;
  /** Model names installed in the local Ollama (desktop), or null when not known (browser). */
  readonly ollamaModels: readonly string[] | null;
  /** A key typed for this run (covers any provider that takes one). */
  readonly inlineKey: boolean;
}

/** Whether `model` can run now (see ModelReadiness). Pure. */
export function modelReadiness(model: Pick<AllowedModel, 'llm_backend' | 'model'>, facts: ModelFacts): ModelReadiness {
  if (model.llm_backend === 'ollama') {
    if (facts.ollamaModels === null) return 'unknown';
    return facts.ollamaModels.some((name) => name === model.model || name === `${model.model}:latest`) ? 'usable' : 'missing';
  }
  if (facts.inlineKey) return 'usable';
  if (facts.storedProviders === null) return 'unknown';
  return facts.storedProviders.includes(model.llm_backend) ? 'usable' : 'missing';
}

/** A condition the user can fix, named with its fix (shown in place of a generic error). */
export interface AnalysisProblem {
  readonly title: string;
  readonly fix: string;
  /** The job the failed run left behind (its checks' findings are kept), when the server named one. */
  readonly jobId: string | null;
}

const NO_KEY_RE = /No api_key given and none stored for provider '([^']+)'/;
const NOT_IN_CATALOGUE_RE = /Model '([^']+)' of backend '([^']+)' is not on the allowed-models catalogue/;

/**
 * The fixable meaning of an analysis request's error (analysis-api.md "Server-side analysis"
 * statuses 400, 402, 413, 422, 502), or null for anything else (shown as an unexpected error).
 */
export function analysisProblem(error: unknown): AnalysisProblem | null {
  if (!(error instanceof ApiError)) return null;
  const body = error.body && typeof error.body === 'object' ? (error.body as Record<string, unknown>) : {};
  const jobId = typeof body.job_id === 'string' ? body.job_id : null;
  const noKey = NO_KEY_RE.exec(error.detail);
  if (error.status === 400 && noKey)
    return {
      title: `No API key is stored for ${noKey[1]}.`,
      fix: `Choose "Deterministic checks only", enter a key for this run, or have an admin store one under Organization → Credentials.`,
      jobId,
    };
  const gone = NOT_IN_CATALOGUE_RE.exec(error.detail);
  if (error.status === 400 && gone)
    return { title: `The model ${gone[2]} · ${gone[1]} is not enabled on this server.`, fix: 'Choose another model, or "Deterministic checks only".', jobId };
  if (error.status === 402)
    return {
      title: error.detail.endsWith('.') ? error.detail : `${error.detail}.`,
      fix: 'Choose "Deterministic checks only" (no model, no cost), or ask an admin about the plan and its spend cap.',
      jobId,
    };
  if (error.status === 413)
    return {
      title: 'The input is larger than this server accepts.',
      fix: `${error.detail}. Split the plan, or ask the operator to raise server.max_input_size_mb.`,
      jobId,
    };
  if (error.status === 422) return { title: 'The input could not be analysed.', fix: `${error.detail}.`, jobId };
  if (error.status === 502)
    return {
      title: 'The model call failed.',
      fix: `${error.detail}. Try again, choose another model, or "Deterministic checks only".`,
      jobId,
    };
  return null;
}
