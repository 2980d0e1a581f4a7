/**
 * Baselines served by a bare Express 5 app on 127.0.0.1 (prints `BENCH_URL <url>`), with the
 * JSON document in BENCH_PAYLOAD_FILE:
 * - GET /bare (findings-list benchmark): the document, re-serialised per request, as a real
 *   route would;
 * - POST /bare-ingest (ingest-floor benchmark): reads the whole request body (up to 11 MB, as
 *   bytes) and answers the file's text as it is: the HTTP part of an ingest with no work between.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';

const text = readFileSync(process.env.BENCH_PAYLOAD_FILE ?? '', 'utf8');
const payload: unknown = JSON.parse(text);
const app = express();
app.get('/bare', (_req, res) => {
  res.json(payload);
});
app.post('/bare-ingest', express.raw({ type: () => true, limit: '11mb' }), (req, res) => {
  if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
    res.status(422).json({ detail: 'empty body' });
    return;
  }
  res.status(201).type('json').send(text);
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`BENCH_URL http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
