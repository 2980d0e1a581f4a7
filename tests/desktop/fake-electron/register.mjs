// `node --import ./register.mjs <bundle>`: the bundled main process runs under plain Node with
// `electron` resolved to ./electron.mjs (a stand-in; Electron's binary cannot be downloaded here).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
