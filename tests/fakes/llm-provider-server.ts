/**
 * A real local HTTP server speaking the three LLM wire protocols (DESIGN.md "LLM providers",
 * STYLE.md "Tests"): OpenAI `POST /v1/chat/completions`, Anthropic `POST /v1/messages`,
 * Ollama `POST /api/chat`. The official SDKs talk to it exactly as to the real services.
 *
 * Each call consumes the next scripted step (default 'valid'). A valid answer is derived from
 * the request: the unit body between prompt.ts's fences, the first rule id of the ruleset
 * between RULESET_BEGIN/END, the unit name from the `- name:` line.
 *
 * Structured output (issue 15): an Anthropic request with `tools` + a forced `tool_choice` is
 * answered with a `tool_use` block whose input is the payload; OpenAI `json_schema` and Ollama
 * `format` schemas are recorded as sent. Ollama's `POST /api/show` answers the model's context
 * length (`setContextLength`) and is recorded in `showRequests`, not in `requests`; Ollama's
 * `prompt_eval_count` is the o200k token count of the prompt (what a model of that vocabulary
 * would evaluate), or far fewer for a 'prompt-truncated' step.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LlmBackend } from '../../engine/src/llm/types';
import { countTokens } from '../../engine/src/llm/tokens';
import { extractJson } from '../../engine/src/llm/parse-output';
import { defaultMessage, sendError } from './llm-provider-errors';
import { validAnswer } from './llm-provider-answers';

export { pickRuleId } from './llm-provider-answers';

export type ScriptStep =
  | 'valid'
  | 'malformed'
  | 'truncated'
  | 'slow'
  /** Ollama: reports a prompt_eval_count of a tenth of the prompt (as when it cut an overflowing prompt). */
  | 'prompt-truncated'
  | { readonly status: number; readonly message?: string }
  | { readonly text: string };

export interface RecordedRequest {
  readonly backend: LlmBackend | 'unknown';
  readonly path: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON body (undefined when it was not JSON). */
  readonly body: unknown;
  /** The system text as the provider received it ('' when none). */
  readonly system: string;
  /** The user text ('' when none). */
  readonly user: string;
}

export interface FakeProvider {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `${url}/v1` — the OpenAI SDK's baseURL. */
  readonly openaiBaseUrl: string;
  /** `${url}` — the Anthropic SDK appends `/v1/messages`. */
  readonly anthropicBaseUrl: string;
  /** `${url}` — the Ollama SDK appends `/api/chat`. */
  readonly ollamaHost: string;
  /** Every request received, in order (model look-ups aside). */
  readonly requests: RecordedRequest[];
  /** Ollama `POST /api/show` bodies received, in order. */
  readonly showRequests: unknown[];
  /** Context length `/api/show` reports for every model (default 131072). */
  setContextLength(tokens: number): void;
  /** Queues answers for the next calls (across all backends, in order). */
  script(steps: readonly ScriptStep[]): void;
  /** Steps queued and not yet consumed. */
  pending(): number;
  /** Delay before every answer, in ms. */
  setLatency(ms: number): void;
  /** Drops queued steps and recorded requests and restores the initial latency. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_CONTEXT_LENGTH = 131_072;

export interface FakeProviderOptions {
  /** Delay before every answer (default 0). */
  readonly latencyMs?: number;
  /** How long a 'slow' step waits before answering (default 10 s: longer than any test timeout). */
  readonly slowMs?: number;
  /** Models Ollama's `GET /api/tags` lists (default `['llama3.1:8b']`; `[]` = Ollama with no model). */
  readonly ollamaModels?: readonly string[];
}

/** Starts the fake on 127.0.0.1, port 0. Close it in afterAll/afterEach. */
export async function startFakeProvider(options: FakeProviderOptions = {}): Promise<FakeProvider> {
  const initialLatencyMs = options.latencyMs ?? 0;
  let latencyMs = initialLatencyMs;
  const slowMs = options.slowMs ?? 10_000;
  const queue: ScriptStep[] = [];
  const requests: RecordedRequest[] = [];
  const showRequests: unknown[] = [];
  let contextLength = DEFAULT_CONTEXT_LENGTH;
  const cachedSystems = new Set<string>();
  let counter = 0;

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0];
    const backend = backendFor(req.method ?? 'GET', path);
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    if (req.method === 'POST' && path === '/api/show') {
      showRequests.push(body);
      const model = isRecord(body) && typeof body.model === 'string' ? body.model : '';
      if (model === '') sendJson(res, 400, { error: 'model is required' });
      else
        sendJson(res, 200, {
          modelfile: '',
          parameters: '',
          template: '{{ .Prompt }}',
          details: { family: 'llama', format: 'gguf' },
          model_info: { 'general.architecture': 'llama', 'llama.context_length': contextLength },
          capabilities: ['completion'],
        });
      return;
    }
    const { system, user } = messagesOf(backend, body);
    requests.push({ backend, path, headers: flatHeaders(req), body, system, user });
    if (req.method === 'GET' && path === '/api/tags') {
      sendJson(res, 200, { models: ollamaTags(options.ollamaModels ?? ['llama3.1:8b']) });
      return;
    }

    if (backend === 'unknown') {
      sendJson(res, 404, { error: `no route for ${req.method} ${path}` });
      return;
    }
    if (!isRecord(body)) {
      sendError(res, backend, 400, 'request body is not valid JSON');
      return;
    }
    const authProblem = checkAuth(backend, req);
    if (authProblem) {
      sendError(res, backend, authProblem.status, authProblem.message);
      return;
    }

    const step = queue.shift() ?? 'valid';
    if (!(await wait(latencyMs, res))) return;
    if (step === 'slow' && !(await wait(slowMs, res))) return;
    if (typeof step === 'object' && 'status' in step) {
      sendError(res, backend, step.status, step.message ?? defaultMessage(backend, step.status));
      return;
    }

    const valid = validAnswer(system, user);
    const forcedTool =
      backend === 'anthropic' && Array.isArray(body.tools) && isRecord(body.tool_choice) && body.tool_choice.type === 'tool'
        ? String(body.tool_choice.name)
        : null;
    let text: string;
    let truncated = false;
    if (step === 'malformed') text = 'Sure! Here is my analysis of the resource: {"summary": "looks fine", "findings": [';
    else if (step === 'truncated') {
      text = valid.slice(0, Math.floor(valid.length / 2));
      truncated = true;
    } else if (typeof step === 'object') text = step.text;
    else text = valid;
    const promptTokens = backend === 'ollama' ? countTokens(system) + countTokens(user) : 0;

    counter += 1;
    const inputTokens = tokens(system) + tokens(user);
    const outputTokens = tokens(text);
    const model = typeof body.model === 'string' ? body.model : 'unknown';
    if (backend === 'openai') {
      res.setHeader('x-request-id', `req_fake${counter}`);
      sendJson(res, 200, {
        id: `chatcmpl-fake${counter}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: text, refusal: null, annotations: [] },
            logprobs: null,
            finish_reason: truncated ? 'length' : 'stop',
          },
        ],
        usage: {
          prompt_tokens: inputTokens,
          completion_tokens: outputTokens,
          total_tokens: inputTokens + outputTokens,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
        service_tier: 'default',
        system_fingerprint: 'fp_fake',
      });
    } else if (backend === 'anthropic') {
      // Simulate prompt caching: a system block marked cache_control is written once, then read.
      const cacheable = Array.isArray(body.system) && body.system.some((b) => isRecord(b) && b.cache_control != null);
      const sys = tokens(system);
      const usage = {
        input_tokens: inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: outputTokens,
        service_tier: 'standard',
      };
      if (cacheable) {
        usage.input_tokens = tokens(user);
        if (cachedSystems.has(system)) usage.cache_read_input_tokens = sys;
        else {
          usage.cache_creation_input_tokens = sys;
          cachedSystems.add(system);
        }
      }
      res.setHeader('request-id', `req_fake${counter}`);
      // A forced tool call carries the payload as its input: the scripted text's JSON object, else the text as a field.
      let toolInput: unknown = null;
      if (forcedTool) {
        try {
          toolInput = extractJson(text);
        } catch {
          toolInput = { raw: text };
        }
      }
      sendJson(res, 200, {
        id: `msg_fake${counter}`,
        type: 'message',
        role: 'assistant',
        model,
        content: forcedTool && !truncated ? [{ type: 'tool_use', id: `toolu_fake${counter}`, name: forcedTool, input: toolInput }] : [{ type: 'text', text }],
        stop_reason: truncated ? 'max_tokens' : forcedTool ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage,
      });
    } else {
      const final = {
        model,
        created_at: new Date().toISOString(),
        message: { role: 'assistant', content: text },
        done: true,
        done_reason: truncated ? 'length' : 'stop',
        total_duration: 1_000_000,
        load_duration: 1_000,
        prompt_eval_count: step === 'prompt-truncated' ? Math.max(1, Math.floor(promptTokens / 10)) : promptTokens,
        prompt_eval_duration: 1_000,
        eval_count: outputTokens,
        eval_duration: 1_000,
      };
      if (body.stream === false) sendJson(res, 200, final);
      else {
        // Ollama streams NDJSON unless stream is false.
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.write(`${JSON.stringify({ model, created_at: final.created_at, message: { role: 'assistant', content: text }, done: false })}\n`);
        res.end(`${JSON.stringify({ ...final, message: { role: 'assistant', content: '' } })}\n`);
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    ollamaHost: url,
    requests,
    showRequests,
    setContextLength: (tokens) => void (contextLength = tokens),
    script(steps) {
      queue.push(...steps);
    },
    pending: () => queue.length,
    setLatency: (ms) => void (latencyMs = ms),
    reset() {
      queue.length = 0;
      requests.length = 0;
      showRequests.length = 0;
      contextLength = DEFAULT_CONTEXT_LENGTH;
      latencyMs = initialLatencyMs;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** Ollama's `GET /api/tags` entries (the fields its API documents). */
function ollamaTags(names: readonly string[]): Record<string, unknown>[] {
  return names.map((name) => ({
    name,
    model: name,
    modified_at: '2025-01-01T00:00:00Z',
    size: 4_920_753_328,
    digest: `sha256:${'0'.repeat(64)}`,
    details: { format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '8.0B', quantization_level: 'Q4_K_M' },
  }));
}

function backendFor(method: string, path: string): LlmBackend | 'unknown' {
  if (method !== 'POST') return 'unknown';
  if (path === '/v1/chat/completions' || path === '/chat/completions') return 'openai';
  if (path === '/v1/messages') return 'anthropic';
  if (path === '/api/chat') return 'ollama';
  return 'unknown';
}

/** Wire-level auth checks the real services make (the SDKs must send the key). */
function checkAuth(backend: LlmBackend, req: IncomingMessage): { status: number; message: string } | null {
  if (backend === 'openai' && !/^Bearer \S+/.test(req.headers.authorization ?? '')) {
    return {
      status: 401,
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
    };
  }
  if (backend === 'anthropic') {
    if (!req.headers['x-api-key'] && !req.headers.authorization) return { status: 401, message: 'x-api-key header is required' };
    if (!req.headers['anthropic-version']) return { status: 400, message: 'anthropic-version: header is required' };
  }
  return null;
}

function messagesOf(backend: LlmBackend | 'unknown', body: unknown): { system: string; user: string } {
  if (!isRecord(body)) return { system: '', user: '' };
  const messages = Array.isArray(body.messages) ? body.messages.filter(isRecord) : [];
  const textOf = (content: unknown): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((part) => (isRecord(part) && typeof part.text === 'string' ? part.text : '')).join('')
        : '';
  const user = messages
    .filter((m) => m.role === 'user')
    .map((m) => textOf(m.content))
    .join('\n');
  const system =
    backend === 'anthropic'
      ? textOf(body.system)
      : messages
          .filter((m) => m.role === 'system' || m.role === 'developer')
          .map((m) => textOf(m.content))
          .join('\n');
  return { system, user };
}

/** Resolves true after `ms`, or false as soon as the client goes away. */
function wait(ms: number, res: ServerResponse): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(!res.destroyed);
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', onClose);
      resolve(!res.destroyed);
    }, ms);
    res.once('close', onClose);
  });
}

function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  const data = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
  res.end(data);
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
