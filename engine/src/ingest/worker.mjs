// Worker-thread entry of the ingest pool (worker-pool.ts). Plain ESM so that it loads without a
// TypeScript loader: the compiled build passes its bundled body as workerData.impl; otherwise
// the TypeScript body is imported through tsx (as template-sandbox-worker.mjs does).
import { parentPort, workerData } from 'node:worker_threads';

const impl = workerData?.impl ? await import(workerData.impl) : await (await import('tsx/esm/api')).tsImport('./worker-impl.ts', import.meta.url);
parentPort.on('message', (message) => {
  impl.runIngestJob(message.id, message.job, (reply) => parentPort.postMessage(reply));
});
parentPort.postMessage({ type: 'ready' });
