/**
 * The baseline for the findings-list benchmark: a bare Express 5 app on 127.0.0.1 answering
 * GET /bare with the JSON document in BENCH_PAYLOAD_FILE (re-serialised per request, as a real
 * route would). Prints `BENCH_URL <url>`.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';

const payload: unknown = JSON.parse(readFileSync(process.env.BENCH_PAYLOAD_FILE ?? '', 'utf8'));
const app = express();
app.get('/bare', (_req, res) => {
  res.json(payload);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`BENCH_URL http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
