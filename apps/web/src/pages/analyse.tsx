import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type DragEvent, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, isDesktop } from '../api/client';
import { analysisProblem, modelReadiness, type ModelFacts } from '../api/model-availability';
import type { AllowedModel, AnalyzeBody } from '../api/types';
import { useSession } from '../auth/session';
import { desktopApi } from '../desktop/api';
import { decodePlanBytes } from '../ui/decode';
import { CHECKS_ONLY, ModelChoice, splitModelKey } from '../ui/model-select';
import { Field, Page } from '../ui/page';
import { ActionResult } from '../ui/states';

/** The model suggested in every "how to add a local model" line (as the desktop's Ollama panel does). */
const SUGGESTED_OLLAMA_MODEL = 'llama3.1:8b';

// The `pattern` attribute compiles with the `v` flag, where a literal `-` in a class must be escaped.
const NAMESPACE_PATTERN = '[A-Za-z0-9][A-Za-z0-9._\\-]{0,127}';

/** The namespace of pasted input (no file name to go by): `dash-YYYYMMDD-HHMM`. */
function defaultNamespace(): string {
  return `dash-${new Date().toISOString().slice(0, 16).replace(/[-:]/g, '').replace('T', '-')}`;
}

/**
 * The namespace of an input read from a file: its name in the namespace alphabet, so every run of
 * the same plan lands in the same namespace and is compared with the previous one
 * (docs/decisions.md "Runs compared"); the time-stamped default when nothing usable is left.
 */
function namespaceFromFileName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 128);
  return cleaned === '' ? defaultNamespace() : cleaned;
}

/**
 * What the page knows about usable models: the org's stored credentials (admins may list them),
 * the desktop's Ollama discovery (which also adds the installed models to the catalogue, so the
 * catalogue is fetched again after it). `inlineKey` is false: the page adds the typed key.
 */
function useModelFacts(): ModelFacts {
  const session = useSession();
  const client = useQueryClient();
  const admin = session.can('admin');
  const credentials = useQuery({
    queryKey: ['credentials', session.org_id],
    queryFn: () => api.get<{ credentials: { provider: string }[] }>(`/orgs/${encodeURIComponent(session.org_id!)}/llm-credentials`),
    enabled: admin && Boolean(session.org_id),
    retry: false,
  });
  const ollama = useQuery({ queryKey: ['desktop', 'ollama'], queryFn: desktopApi.ollama, enabled: isDesktop(), retry: false });
  useEffect(() => {
    if (ollama.data?.status === 'ready') void client.invalidateQueries({ queryKey: ['models'] });
  }, [ollama.data, client]);
  return {
    storedProviders: credentials.data ? credentials.data.credentials.map((c) => c.provider) : null,
    ollamaModels: ollama.data ? (ollama.data.status === 'ready' ? ollama.data.models.map((m) => m.name) : []) : null,
    inlineKey: false,
  };
}

/** The one line under the model choice: what runs, and how to add a model when none is usable. */
function ChoiceNote({ choice, models, facts }: { choice: string; models: readonly AllowedModel[]; facts: ModelFacts }) {
  const session = useSession();
  const anyUsable = models.some((m) => modelReadiness(m, facts) === 'usable');
  const credentialsLink = <Link to="/organization?tab=credentials">Organization → Credentials</Link>;
  const ollamaStep = isDesktop() ? (
    <>
      <code>ollama pull {SUGGESTED_OLLAMA_MODEL}</code> (<Link to="/desktop">Desktop settings</Link>)
    </>
  ) : (
    <>
      <code>ollama pull {SUGGESTED_OLLAMA_MODEL}</code> on the server
    </>
  );
  if (choice === CHECKS_ONLY)
    return (
      <p className="muted" data-testid="choice-note">
        {anyUsable ? (
          "The rules' deterministic checks run alone: no model, no cost, findings in seconds."
        ) : (
          <>
            No model is set up, so the checks run alone. Add one: {session.can('admin') ? 'a provider key under ' : 'ask an admin for a key under '}
            {credentialsLink}, or {ollamaStep}.
          </>
        )}
      </p>
    );
  const { llm_backend, model } = splitModelKey(choice);
  const readiness = modelReadiness({ llm_backend, model }, facts);
  if (readiness === 'missing')
    return (
      <p className="state unavailable" role="status" data-testid="choice-note">
        {llm_backend === 'ollama' ? (
          <>
            {model} is not installed in Ollama: run <code>ollama pull {model}</code>, or choose "Deterministic checks only".
          </>
        ) : (
          <>
            No key is stored for {llm_backend}: enter one below for this run, store one under {credentialsLink}, or choose "Deterministic checks only".
          </>
        )}
      </p>
    );
  return (
    <p className="muted" data-testid="choice-note">
      The checks run first; {llm_backend} · {model} then reviews every unit against the rules.
    </p>
  );
}

/** An analysis error the user can fix, named with its fix (analysisProblem); anything else as an unexpected error. */
function RunError({ error, namespace }: { error: unknown; namespace: string }) {
  const problem = analysisProblem(error);
  if (!problem) return <ActionResult error={error} />;
  return (
    <div className="state unavailable" role="alert">
      <p>
        <strong>{problem.title}</strong> {problem.fix}
      </p>
      {problem.jobId ? (
        <p>
          <Link to={`/jobs/${encodeURIComponent(problem.jobId)}`}>Open the job</Link> to see what was kept, or{' '}
          <Link to={`/plan/${encodeURIComponent(namespace)}`}>open the plan view</Link> with the checks' findings.
        </p>
      ) : null}
    </div>
  );
}

/**
 * Analyse: drop or pick a plan (JSON or text, UTF-16 included) or paste a diff, choose the
 * analyzer (or auto) and the analysis: "Deterministic checks only" (the request names no model:
 * analysis-api.md "Server-side analysis") or checks plus a catalogue model (GET /models) with
 * its key (stored, or one used once). The default is the first model known to be usable, else
 * checks only (docs/decisions.md "Checks first, a model on top"). Runs POST /{ns}/analyze/auto
 * or /{analyzer}/{ns}/analyze and follows the job.
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
  // Typed by the user: a file picked afterwards no longer renames it.
  const [namespaceTyped, setNamespaceTyped] = useState(false);
  const [analyzer, setAnalyzer] = useState('auto');
  const [picked, setPicked] = useState<string | null>(null);
  const [apiKey, setApiKey] = useState('');
  const facts = useModelFacts();
  const shown = { ...facts, inlineKey: apiKey !== '' };
  const firstUsable = models.data?.models.find((m) => modelReadiness(m, facts) === 'usable');
  // Until the user picks, the choice follows what is known: a usable model, else checks only.
  const choice = picked ?? (firstUsable ? `${firstUsable.llm_backend}/${firstUsable.model}` : CHECKS_ONLY);
  const choiceTakesKey = choice !== CHECKS_ONLY && splitModelKey(choice).llm_backend !== 'ollama';

  const readFile = async (file: File | undefined) => {
    if (!file) return;
    setInput(decodePlanBytes(new Uint8Array(await file.arrayBuffer())));
    setFileName(file.name);
    if (!namespaceTyped) setNamespace(namespaceFromFileName(file.name));
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void readFile(e.dataTransfer.files[0]);
  };

  const run = useMutation({
    mutationFn: async () => {
      const body: AnalyzeBody =
        choice === CHECKS_ONLY
          ? { raw_input: input }
          : { ...splitModelKey(choice), raw_input: input, ...(apiKey && choiceTakesKey ? { api_key: apiKey } : {}) };
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
          <Field label="Namespace" hint="Runs into one namespace are compared. A file's name by default; letters, digits, dot, dash, underscore.">
            <input
              value={namespace}
              onChange={(e) => {
                setNamespace(e.target.value);
                setNamespaceTyped(true);
              }}
              required
              pattern={NAMESPACE_PATTERN}
            />
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
          <ModelChoice models={models} facts={shown} value={choice} onChange={setPicked} />
          {choiceTakesKey ? (
            <Field label="API key (optional)" hint="Used for this run only, never stored. Empty: the organization's stored credential.">
              <input type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} autoComplete="off" />
            </Field>
          ) : null}
        </div>
        {models.data ? <ChoiceNote choice={choice} models={models.data.models} facts={shown} /> : null}
        <button type="submit" disabled={run.isPending || !input}>
          Run analysis
        </button>
        {run.error ? <RunError error={run.error} namespace={namespace} /> : null}
      </form>
    </Page>
  );
}
