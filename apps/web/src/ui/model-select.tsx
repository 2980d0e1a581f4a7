import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { api } from '../api/client';
import { modelReadiness, type ModelFacts, type ModelReadiness } from '../api/model-availability';
import type { AllowedModel, LlmBackend } from '../api/types';
import { Field } from './page';
import { ErrorBox, Loading } from './states';

/** `backend/model`, the value of one catalogue option. */
export function modelKey(backend: string, model: string): string {
  return `${backend}/${model}`;
}

/** Splits a `backend/model` value (the model may itself contain slashes). */
export function splitModelKey(value: string): { llm_backend: LlmBackend; model: string } {
  const i = value.indexOf('/');
  return { llm_backend: value.slice(0, i) as LlmBackend, model: value.slice(i + 1) };
}

/**
 * A labelled select of the model catalogue (GET /models, analysis-api.md "Models"), named
 * `name` in its form with `backend/model` values (read them back with splitModelKey). Shows
 * loading, error and empty states in place of the select.
 */
export function ModelField({ name = 'model', label = 'Model', defaultValue, hint }: { name?: string; label?: string; defaultValue?: string; hint?: string }) {
  const models = useQuery({ queryKey: ['models'], queryFn: () => api.get<{ models: AllowedModel[] }>('/models') });
  if (models.isPending) return <Loading what="Loading models" />;
  if (models.isError) return <ErrorBox error={models.error} retry={() => void models.refetch()} />;
  if (models.data.models.length === 0)
    return <p className="state empty">No model is enabled on this server: a platform administrator adds models to the catalogue first.</p>;
  return (
    <Field label={label} hint={hint}>
      <select name={name} defaultValue={defaultValue} required>
        {models.data.models.map((m) => (
          <option key={modelKey(m.llm_backend, m.model)} value={modelKey(m.llm_backend, m.model)}>
            {m.llm_backend} · {m.model}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The value of the "Deterministic checks only" option: the request then names no model. */
export const CHECKS_ONLY = 'checks-only';

/** How a job's model reads: the API records a checks-only run as backend and model `none`. */
export function jobModelLabel(job: { llm_backend: string; model: string }): string {
  return job.llm_backend === 'none' ? 'deterministic checks only' : `${job.llm_backend} · ${job.model}`;
}

const READINESS_NOTE: Record<ModelReadiness, string> = { usable: '', missing: ' (no key)', unknown: '' };

/**
 * The model choice of an analysis: "Deterministic checks only" first, then the catalogue
 * (GET /models), each marked when it has no key (modelReadiness). `value` is CHECKS_ONLY or a
 * `backend/model` key. Loading and error states replace the select.
 */
export function ModelChoice({
  models,
  facts,
  value,
  onChange,
}: {
  models: UseQueryResult<{ models: AllowedModel[] }>;
  facts: ModelFacts;
  value: string;
  onChange: (value: string) => void;
}) {
  if (models.isPending) return <Loading what="Loading models" />;
  if (models.isError) return <ErrorBox error={models.error} retry={() => void models.refetch()} />;
  return (
    <Field label="Model">
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid="model-choice">
        <option value={CHECKS_ONLY}>Deterministic checks only (no model)</option>
        {models.data.models.length > 0 ? (
          <optgroup label="Checks plus a model's review">
            {models.data.models.map((m) => (
              <option key={modelKey(m.llm_backend, m.model)} value={modelKey(m.llm_backend, m.model)}>
                {m.llm_backend} · {m.model}
                {READINESS_NOTE[modelReadiness(m, facts)]}
              </option>
            ))}
          </optgroup>
        ) : null}
      </select>
    </Field>
  );
}
