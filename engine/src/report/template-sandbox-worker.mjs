// Worker-thread entry of the template sandbox (template-sandbox.ts). Plain ESM so that it loads
// without a TypeScript loader; the implementation is TypeScript, imported through tsx.
import { parentPort } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

const impl = await tsImport('./template-sandbox-impl.ts', import.meta.url);
parentPort.on('message', (job) => {
  void impl.runJob(job).then((reply) => parentPort.postMessage(reply));
});
parentPort.postMessage({ type: 'ready' });
