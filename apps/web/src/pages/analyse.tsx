import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type DragEvent, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../api/client';
import type { AllowedModel, AnalyzeBody, LlmBackend } from '../api/types';
import { useSession } from '../auth/session';
import { decodePlanBytes } from '../ui/decode';
import { Field, Page } from '../ui/page';
import { ActionResult, ErrorBox, Loading } from '../ui/states';

const NAMESPACE_PATTERN = '[A-Za-z0-9][A-Za-z0-9._-]{0,127}';

/** A default namespace for a run started from the dashboard: `dash-YYYYMMDD-HHMM`. */
function defaultNamespace(): string {
  return `dash-${new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-')}`;
}

/**
 * Analyse: drop or pick a plan (JSON or text, UTF-16 included) or paste a diff, choose the
 * analyzer (or auto), the model (GET /models) and the credential (stored, or a key used once),
 * then run (POST /{ns}/analyze/auto or /{analyzer}/{ns}/analyze) and follow the job.
 */
export default function Analyse() {
  const session = useSession();
  const navigate = useNavigate();
  const analyzers = useQuery({ queryKey: ['analyzers'], queryFn: () => api.get<{ analyzers: { name: string; description: string }[] }>('/analyzers') });
  const models = useQuery({ queryKey: ['models'], queryFn: () => api.get<{ models: AllowedModel[] }>('/models') });
  const [input, setInput] = useState('');
  const [fileName, setFileName] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [namespace, setNamespace] = useState(defaultNamespace);
  const [analyzer, setAnalyzer] = useState('auto');
  const [model, setModel] = useState('');
  const [apiKey, setApiKey] = useState('');

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    setInput(decodePlanBytes(new Uint8Array(await file.arrayBuffer())));
    setFileName(file.name);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void readFile(e.dataTransfer.files[0]);
  };

  const run = useMutation({
    mutationFn: async () => {
      const chosen = models.data?.models.find((m) => `${m.llm_backend}/${m.model}` === model) ?? models.data?.models[0];
      if (!chosen) throw new Error('No model is enabled on this server');
      const body: AnalyzeBody = {
        llm_backend: chosen.llm_backend as LlmBackend,
        model: chosen.model,
        raw_input: input,
        ...(apiKey ? { api_key: apiKey } : {}),
      };
      const path =
        analyzer === 'auto' ? `/${encodeURIComponent(namespace)}/analyze/auto` : `/${encodeURIComponent(analyzer)}/${encodeURIComponent(namespace)}/analyze`;
      return api.post<{ job_id: string }>(path, body);
    },
    onSuccess: (res) => void navigate(`/jobs/${encodeURIComponent(res.job_id)}`),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    run.mutate();
  };

  if (!session.can('member'))
    return (
      <Page title="Analyse">
        <p>Your role ({session.role}) cannot start analyses. Ask an admin for the member role.</p>
      </Page>
    );
  return (
    <Page title="Analyse">
      <form className="analyse" onSubmit={submit}>
        {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for files; the file input inside is the keyboard path */}
        <div
          className={`dropzone${dragging ? ' dragging' : ''}`}
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          data-testid="dropzone"
        >
          <p>
            Drop a plan file here (<code>terraform show -json</code> output or plan text, UTF-8 or UTF-16), or
          </p>
          <label className="file-pick">
            <span>Choose a file</span>
            <input type="file" accept=".json,.txt,.diff,.patch,.tf,.yaml,.yml,text/*,application/json" onChange={(e) => void readFile(e.target.files?.[0])} />
          </label>
          {fileName ? (
            <p role="status">
              Loaded <strong>{fileName}</strong> ({input.length.toLocaleString()} characters).
            </p>
          ) : null}
        </div>
        <Field label="Or paste a plan or a unified diff">
          <textarea
            value={input}
            onChange={(e) => {
              setInput(e.target.value);
              setFileName(null);
            }}
            rows={10}
            spellCheck={false}
            className="mono"
            required
          />
        </Field>
        <div className="row">
          <Field label="Namespace" hint="Letters, digits, dot, dash, underscore.">
            <input value={namespace} onChange={(e) => setNamespace(e.target.value)} required pattern={NAMESPACE_PATTERN} />
          </Field>
          <Field label="Analyzer">
            <select value={analyzer} onChange={(e) => setAnalyzer(e.target.value)}>
              <option value="auto">auto (detect)</option>
              {analyzers.data?.analyzers.map((a) => (
                <option key={a.name} value={a.name}>
                  {a.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Model">
            {models.isPending ? (
              <Loading what="Loading models" />
            ) : models.isError ? (
              <ErrorBox error={models.error} />
            ) : (
              <select value={model} onChange={(e) => setModel(e.target.value)}>
                {models.data.models.map((m) => (
                  <option key={`${m.llm_backend}/${m.model}`} value={`${m.llm_backend}/${m.model}`}>
                    {m.llm_backend} · {m.model}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="API key (optional)" hint="Used for this run only, never stored. Empty: the organization's stored credential.">
            <input type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" />
          </Field>
        </div>
        <p className="muted">
          Store a provider credential once under <Link to="/organization?tab=credentials">Organization → Credentials</Link>.
        </p>
        <button type="submit" disabled={run.isPending || !input}>
          Run analysis
        </button>
        <ActionResult error={run.error} />
      </form>
    </Page>
  );
}
