import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
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
