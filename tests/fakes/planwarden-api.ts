import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for a Planwarden server on 127.0.0.1, for what the real one never does: answers
 * of the wrong shape, jobs that never finish, requests never answered. It serves the three
 * calls the `planwarden` command makes (POST …/analyze/auto, GET /jobs/{id}, GET
 * /{namespace}/report) from `answers`, which a test sets before running the command.
 */

/** One HTTP answer: a JSON value (serialised) or raw text; `hang` never answers. */
export type FakeAnswer = { status?: number; json: unknown } | { status?: number; text: string; type?: string } | 'hang';

export interface FakeAnswers {
  analyze: FakeAnswer;
  job: FakeAnswer;
  sarif: FakeAnswer;
  markdown: FakeAnswer;
}

export interface FakePlanwardenApi {
  readonly url: string;
  /** What the server answers; replace fields per test (`reset()` restores a valid run). */
  answers: FakeAnswers;
  /** `METHOD path` of every request received, in order. */
  readonly requests: string[];
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_JOB_ID = 'job-fake-1';

/** A finished job as GET /jobs/{id} answers it. */
export function fakeJob(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    job_id: FAKE_JOB_ID,
    status: 'done',
    resource_count: 1,
    processed_count: 1,
    total_count: 1,
    current_resource: null,
    quota_exceeded: false,
    error: null,
    ...fields,
  };
}

/** A SARIF log of the engine's shape with one result; `result` fields override the defaults. */
export function fakeSarif(result: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Planwarden', rules: [] } },
        results: [
          {
            ruleId: 'S3-001',
            level: 'error',
            message: { text: 'Public bucket (aws_s3_bucket.logs)' },
            locations: [{ logicalLocations: [{ fullyQualifiedName: 'aws_s3_bucket.logs' }] }],
            properties: { severity: 'HIGH', status: 'open', resource_address: 'aws_s3_bucket.logs', resource_hash: 'h1' },
            ...result,
          },
        ],
        properties: { quota_exceeded: false },
      },
    ],
  };
}

function validAnswers(): FakeAnswers {
  return {
    analyze: { status: 202, json: { job_id: FAKE_JOB_ID, status: 'queued' } },
    job: { json: fakeJob() },
    sarif: { json: fakeSarif() },
    markdown: { text: '# Report\n', type: 'text/markdown' },
  };
}

function send(res: ServerResponse, answer: FakeAnswer, held: Set<ServerResponse>): void {
  if (answer === 'hang') {
    held.add(res);
    return;
  }
  if ('json' in answer) res.writeHead(answer.status ?? 200, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
  else res.writeHead(answer.status ?? 200, { 'content-type': answer.type ?? 'application/json' }).end(answer.text);
}

/** Starts the fake on 127.0.0.1, a free port, answering a valid one-finding run until told otherwise. */
export async function startFakePlanwardenApi(): Promise<FakePlanwardenApi> {
  const requests: string[] = [];
  const held = new Set<ServerResponse>();
  const api = { answers: validAnswers() } as { answers: FakeAnswers };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      requests.push(`${req.method} ${url.pathname}`);
      if (req.method === 'POST' && /^\/api\/v1\/[^/]+\/analyze\/auto$/.test(url.pathname)) return send(res, api.answers.analyze, held);
      if (req.method === 'GET' && url.pathname.startsWith('/api/v1/jobs/')) return send(res, api.answers.job, held);
      if (req.method === 'GET' && /^\/api\/v1\/[^/]+\/report$/.test(url.pathname)) {
        return send(res, url.searchParams.get('format') === 'sarif' ? api.answers.sarif : api.answers.markdown, held);
      }
      return send(res, { status: 404, json: { detail: 'Not found' } }, held);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(api, {
    url: `http://127.0.0.1:${port}`,
    requests,
    reset() {
      api.answers = validAnswers();
      requests.length = 0;
    },
    async close() {
      for (const res of held) res.destroy();
      held.clear();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  });
}
