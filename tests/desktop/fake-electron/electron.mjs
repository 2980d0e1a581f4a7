/**
 * A stand-in for the `electron` module, enough to load the bundled main process
 * (apps/desktop/out/main/index.js) under Node and watch what it does before the app is ready.
 * Configured by the environment: FAKE_ELECTRON_PACKAGED ('1' = packaged),
 * FAKE_ELECTRON_RESOURCES_PATH (process.resourcesPath), FAKE_ELECTRON_APP_PATH (app.getAppPath()).
 * When the app asks to be told it is ready, one JSON line is printed on stdout:
 * `{"ready_requested": true, "resources_dir": <PLANWARDEN_RESOURCES_DIR>, "schemes": [...]}`
 * and readiness never comes (no window is opened).
 */
process.resourcesPath = process.env.FAKE_ELECTRON_RESOURCES_PATH ?? '/nonexistent/resources';
const schemes = [];
const inert = new Proxy(() => {}, { get: () => inert, apply: () => inert, construct: () => inert });

export const app = {
  isPackaged: process.env.FAKE_ELECTRON_PACKAGED === '1',
  getAppPath: () => process.env.FAKE_ELECTRON_APP_PATH ?? '/nonexistent/app.asar',
  getPath: () => '/nonexistent/user-data',
  requestSingleInstanceLock: () => true,
  quit: () => undefined,
  exit: (code) => process.exit(code),
  on: () => app,
  off: () => app,
  whenReady() {
    process.stdout.write(`${JSON.stringify({ ready_requested: true, resources_dir: process.env.PLANWARDEN_RESOURCES_DIR ?? null, schemes })}\n`);
    return new Promise(() => {});
  },
};
export const protocol = { registerSchemesAsPrivileged: (list) => schemes.push(...list.map((s) => s.scheme)), handle: inert };
export const BrowserWindow = inert;
export const Menu = inert;
export const dialog = inert;
export const ipcMain = inert;
export const safeStorage = inert;
export const shell = inert;
export const net = inert;
export const session = inert;
export default { app, protocol, BrowserWindow, Menu, dialog, ipcMain, safeStorage, shell, net, session };
