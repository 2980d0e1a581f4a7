import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 playing HCP Terraform's side of a run task (HCP Terraform
 * "Run tasks integration"):
 * - `GET /api/v2/plans/{plan_id}/json-output` checks `Authorization: Bearer <access token>` and,
 *   like HCP, answers 307 to a pre-signed download (`/archivist/{plan_id}`), or the status or
 *   location a test scripted for that plan;
 * - `PATCH /api/v2/task-results/{id}/callback` records the task result; `nextCallback()` waits
 *   for the next one (tests wait on events, never on sleeps).
 * `runTaskRequest()` builds the JSON HCP POSTs to the run task URL, `sign()` its signature.
 */
export interface RecordedCallback {
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: { data: { type: string; attributes: { status: string; message: string; url?: string } } };
}

export interface PlanScript {
  /** The plan JSON served after the redirect. */
  readonly json?: string;
  /** Answer json-output with this status instead (e.g. 500). */
  readonly status?: number;
  /** Redirect json-output here instead of to the archivist path. */
  readonly location?: string;
}

export interface FakeHcpTerraform {
  readonly url: string;
  /** Serves `script` for `planId`, reachable with `token` only. */
  addPlan(planId: string, token: string, script: PlanScript): void;
  /** Every request received (method and path), in order. */
  readonly requests: { method: string; path: string; authorization: string | null }[];
  readonly callbacks: RecordedCallback[];
  nextCallback(): Promise<RecordedCallback>;
  /** The run task request body for a run of `planId` (access token `token`). */
  runTaskRequest(planId: string | null, token: string, extra?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

/** `X-TFC-Task-Signature`: hex HMAC-SHA512 of the raw body under the task's HMAC key. */
export function sign(key: string, raw: string): string {
  return createHmac('sha512', key).update(raw).digest('hex');
}

export async function startFakeHcpTerraform(): Promise<FakeHcpTerraform> {
  const plans = new Map<string, { token: string; script: PlanScript }>();
  const requests: FakeHcpTerraform['requests'] = [];
  const callbacks: RecordedCallback[] = [];
  const waiters: ((c: RecordedCallback) => void)[] = [];
  let consumed = 0;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      requests.push({ method: req.method ?? '', path, authorization: req.headers.authorization ?? null });
      const jsonOutput = /^\/api\/v2\/plans\/([^/]+)\/json-output$/.exec(path);
      const archivist = /^\/archivist\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && jsonOutput) {
        const plan = plans.get(jsonOutput[1]);
        if (!plan || req.headers.authorization !== `Bearer ${plan.token}`) return void res.writeHead(401).end('{"errors":[{"status":"401"}]}');
        if (plan.script.status) return void res.writeHead(plan.script.status).end();
        return void res.writeHead(307, { location: plan.script.location ?? `/archivist/${jsonOutput[1]}` }).end();
      }
      if (req.method === 'GET' && archivist && plans.has(archivist[1])) {
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(plans.get(archivist[1])!.script.json ?? '{}');
      }
      if (req.method === 'PATCH' && /^\/api\/v2\/task-results\/[^/]+\/callback$/.test(path)) {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
        const callback = { path, headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as RecordedCallback['body'] };
        callbacks.push(callback);
        const waiter = waiters.shift();
        if (waiter) {
          consumed += 1;
          waiter(callback);
        }
        return void res.writeHead(200, { 'content-type': 'application/vnd.api+json' }).end('{}');
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    callbacks,
    addPlan(planId, token, script) {
      plans.set(planId, { token, script });
    },
    nextCallback() {
      if (consumed < callbacks.length) return Promise.resolve(callbacks[consumed++]);
      return new Promise((r) => waiters.push(r));
    },
    runTaskRequest(planId, token, extra = {}) {
      const run = `run-${randomUUID().slice(0, 8)}`;
      return {
        payload_version: 1,
        access_token: token,
        stage: 'post_plan',
        is_speculative: false,
        task_result_id: `taskrs-${run}`,
        task_result_enforcement_level: 'mandatory',
        task_result_callback_url: `${url}/api/v2/task-results/taskrs-${run}/callback`,
        run_app_url: `${url}/app/acme/ws/runs/${run}`,
        run_id: run,
        run_message: 'Queued manually',
        run_created_at: new Date().toISOString(),
        run_created_by: 'someone',
        workspace_id: 'ws-1',
        workspace_name: 'networking',
        workspace_app_url: `${url}/app/acme/networking`,
        organization_name: 'acme',
        plan_json_api_url: planId ? `${url}/api/v2/plans/${planId}/json-output` : null,
        vcs_repo_url: null,
        ...extra,
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
