// Worker-thread entry of the template sandbox (template-sandbox.ts). Plain ESM so that it loads
// without a TypeScript loader: a compiled build passes its bundled body as workerData.impl;
// otherwise the TypeScript body is imported through tsx.
import { parentPort, workerData } from 'node:worker_threads';

const impl = workerData?.impl ? await import(workerData.impl) : await (await import('tsx/esm/api')).tsImport('./template-sandbox-impl.ts', import.meta.url);
parentPort.on('message', (job) => {
  void impl.runJob(job).then((reply) => parentPort.postMessage(reply));
});
parentPort.postMessage({ type: 'ready' });
