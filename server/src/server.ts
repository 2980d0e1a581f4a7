import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Server } from 'node:http';
import { createAnalyzerRegistry } from '@planwarden/engine/analyzers/registry';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import type { Logger } from '@planwarden/engine/core/logger';
import { CURATED_MODELS } from '@planwarden/engine/llm/cost';
import { createProvider } from '@planwarden/engine/llm/providers/index';
import { SecretBox } from '@planwarden/engine/llm/secret-box';
import type { LlmBackend } from '@planwarden/engine/llm/types';
import { DEFAULT_ORG_ID } from '@planwarden/engine/orgs/org-store';
import { openStore } from '@planwarden/engine/store/open-store';
import { createStores, ensureSchema } from '@planwarden/engine/stores';
import { ensureRulesSeeded } from '@planwarden/engine/custom-rules/custom-seed';
import { renderNamespaceReport } from '@planwarden/engine/report/namespace-report';
import { configureTemplateSandbox } from '@planwarden/engine/report/template-sandbox';
import { configureNotifications } from '@planwarden/engine/notify/signed-delivery';
import { assertBudget, budgetExhausted } from '@planwarden/engine/usage/usage-service';
import type { Config } from './config/config';
import { serverKeyMaterial } from './config/key-file';
import { PlatformSettingsStore } from '@planwarden/engine/admin/settings-store';
import { PLATFORM_INDEXES } from '@planwarden/engine/admin/platform-schema';
import { SwitchableStore } from '@planwarden/engine/store/switchable';
import { SettingsService } from './config/settings-service';
import { startPlatformTasks } from './tasks/platform-tasks';
import { createLogger } from './logging';
import { createApp } from './app';
import { API_BASE } from './http/route';
import { docsRouter } from './http/docs';
import { dashboardRouter } from './http/dashboard';
import { JobRunner } from './jobs/runner';
import { lazyMcpEndpoint, MCP_MOUNT_PATH } from './mcp/lazy-endpoint';
import { allRoutes } from './routes/index';
import { buildIdentityServices } from './auth/build-identity';
import { primeDummyHash } from './auth/login';
import { ensureDefaultAdmin } from '@planwarden/engine/identity/registration';
import type { ServerServices } from './services';

export interface StartOptions {
  /** Fake clocks in tests. */
  readonly now?: () => Date;
  readonly log?: Logger;
  /** Backoff sleep for the LLM retry loop (tests pass a zero-delay one). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Job runner poll interval (ms). */
  readonly pollIntervalMs?: number;
}

export interface RunningServer {
  readonly url: string;
  readonly services: ServerServices;
  close(): Promise<void>;
}

/** The key sealing secrets at rest: PLANWARDEN_SECRET_KEY, else one generated once into the data dir. */
function secretKeyMaterial(config: Config): Buffer | string {
  return serverKeyMaterial(config, config.secret_key, 'secret.key', 'secret_key (PLANWARDEN_SECRET_KEY)');
}

/**
 * Builds the team server: storage, schema, seeds (default org, model catalogue), engine
 * context, job runner and the Express app. Does not listen.
 */
export async function buildServer(baseConfig: Config, options: StartOptions = {}) {
  const log: Logger = options.log ?? createLogger(baseConfig);
  let config = baseConfig;
  const opened = await openStore({
    backend: config.storage.backend,
    dataDir: resolve(config.data_dir),
    uri: config.storage.uri ?? undefined,
    database: config.storage.database,
  });
  // On the opened store itself, not through the switchable wrapper below: the wrapper forwards
  // ensureIndexes only, so ensureSchema would fall back to one call per collection (on SQLite one
  // transaction each on a fresh folder, one catalogue read each on an existing one) instead of the
  // adapter's single batch, as storage-admin.ts prepares a switch target.
  await ensureSchema(opened, PLATFORM_INDEXES);
  // POST /admin/storage/switch swaps the backend under every typed store (store/switchable.ts).
  const store = new SwitchableStore(opened, config.storage.backend === 'docdb' ? config.storage.database : null);
  const secretBox = new SecretBox(secretKeyMaterial(config));
  const stores = createStores(store, secretBox);
  // identity-api.md "Platform settings": file/environment ← PATCH /admin/settings overrides, read live.
  const settingsService = new SettingsService(baseConfig, new PlatformSettingsStore(store), secretBox);
  await settingsService.refresh();
  config = settingsService.live;
  const now = options.now ?? (() => new Date());
  // `notifications.egress.*` is an alias merged into the one egress policy (docs/decisions.md).
  const allowlist = [...config.egress.allowlist, ...config.notifications.egress.allowlist, ...config.notifications.egress.allowed_hosts];
  const engine: EngineContext = { stores, analyzers: createAnalyzerRegistry(), now, log, egress: { allowlist } };
  configureNotifications({
    timeoutMs: config.notifications.timeout_seconds * 1000,
    maxChannelsPerOrg: config.notifications.max_channels_per_org,
    // Read at each delivery: the live configuration (settings-service.ts) follows setting changes.
    dashboardBaseUrl: () => config.server.dashboard_base_url ?? config.server.public_base_url,
  });
  const { pool_size, max_concurrent_per_org, max_queued_per_org, max_queued } = config.templates;
  configureTemplateSandbox({ poolSize: pool_size, maxConcurrentPerLane: max_concurrent_per_org, maxQueuedPerLane: max_queued_per_org, maxQueued: max_queued });
  // A read, not a write, on every start after the first (ensure is an upsert).
  if (!(await stores.orgs.get(DEFAULT_ORG_ID)))
    await stores.orgs.ensure({ org_id: DEFAULT_ORG_ID, name: 'Default organization', slug: 'default' }, now().toISOString());
  await stores.models.seed(CURATED_MODELS, now().toISOString());
  await ensureRulesSeeded(engine, DEFAULT_ORG_ID);
  const identity = buildIdentityServices(config, engine);
  await ensureDefaultAdmin(
    { engine, actor: { userId: null, keyId: null, email: null, isSuperadmin: true, ip: null, requestId: null } },
    config.auth.default_admin_email,
    config.auth.default_admin_password,
  );

  const baseUrls: Record<LlmBackend, string | null> = {
    openai: config.llm.openai_base_url,
    anthropic: config.llm.anthropic_base_url,
    ollama: config.llm.ollama_host,
  };
  const providerFor = (backend: LlmBackend, apiKey: string | null) => createProvider({ backend, apiKey, baseUrl: baseUrls[backend] });
  const settings = () => ({ ...config.analysis, ...config.server, ...config.jobs, rule_health: config.rule_health });
  const runner = new JobRunner({
    ctx: engine,
    settings,
    providerFor,
    leaseSeconds: config.jobs.lease_seconds,
    pollIntervalMs: options.pollIntervalMs,
    reclaimOnStart: config.storage.backend !== 'docdb',
    sleep: options.sleep,
    budgetExhausted: (orgId) => budgetExhausted(engine, orgId),
    // jobs/platform-tasks.ts schedules the stuck sweep (gated, recorded, shared by replicas).
    sweepTimer: false,
  });
  const services: ServerServices = {
    config,
    engine,
    secretBox,
    runner,
    identity,
    settings: settingsService,
    analysis: {
      ctx: engine,
      settings,
      providerFor,
      enqueue: (job, apiKey) => runner.enqueue(job, apiKey),
      syncLease: runner.syncLease(),
      sleep: options.sleep,
      // analysis-api.md: 402 before any work when the monthly cap is met; a cap reached mid-run ends the job with quota_exceeded.
      assertBudget: (orgId) => assertBudget(engine, orgId, config.usage),
      budgetExhausted: (orgId) => budgetExhausted(engine, orgId),
      renderReport: async (orgId, namespace, job) =>
        (await renderNamespaceReport(engine, orgId, namespace, { format: 'markdown', includeSuppressed: false, job })).content,
    },
  };
  const routes = allRoutes(services);
  const mcp = lazyMcpEndpoint({ services, log, routes, authenticate: (req) => identity.authenticator.authenticate(req) });
  const app = createApp({
    engine,
    log,
    routes,
    identity,
    beforeRoutes: [
      (_req, _res, next) => {
        settingsService.refresh().then(() => next(), next);
      },
    ],
    // The dashboard answers `/` and its client routes; without a build, docs.ts's landing page does.
    mounts: [
      { path: MCP_MOUNT_PATH, handler: mcp.router },
      { path: '/', handler: dashboardRouter({ config }) },
      { path: '/', handler: docsRouter(routes, API_BASE) },
    ],
  });
  return { app, services, routes, store, runner, log, mcp, settings: settingsService };
}

/**
 * Why the server could not listen on host:port, naming the address and the setting to change
 * (server.port / PLANWARDEN_PORT, server.host / PLANWARDEN_HOST); other errors unchanged.
 */
export function listenError(error: unknown, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new Error(
      `${where} is already in use by another process: stop it, or set PLANWARDEN_PORT (server.port) to a free port, e.g. PLANWARDEN_PORT=8001 npm start`,
    );
  if (code === 'EACCES') return new Error(`no permission to listen on ${where}: set PLANWARDEN_PORT (server.port) to a port above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new Error(`${host} is not an address of this machine: set PLANWARDEN_HOST (server.host), e.g. 127.0.0.1`);
  return error instanceof Error ? error : new Error(String(error));
}

/** Builds and starts the server on config.server.host:port (port 0 = a free port). Throws listenError's message when it cannot listen. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const built = await buildServer(config, options);
  await built.runner.start();
  const platformTasks = startPlatformTasks(built.services, built.log);
  let server: Server;
  try {
    server = await new Promise((resolvePromise, reject) => {
      // Express 5 hands a listen error to this callback (and the server emits it): either way, reject.
      const s = built.app.listen(config.server.port, config.server.host, (error?: Error) => (error ? reject(error) : resolvePromise(s)));
      s.once('error', reject);
    });
  } catch (error) {
    platformTasks.stop();
    await built.runner.stop();
    await built.mcp.close();
    built.services.identity.guard.shutdown();
    await built.store.close();
    throw listenError(error, config.server.host, config.server.port);
  }
  // Once listening, not before: the dummy hash is one scrypt (~90 ms of CPU on a pool thread)
  // that start-up on two cores would otherwise share its CPU with; a login before it is ready
  // makes it itself (login.ts).
  const priming = setImmediate(() => void primeDummyHash());
  const { port } = server.address() as AddressInfo;
  const url = `http://${config.server.host}:${port}`;
  return {
    url,
    services: built.services,
    async close() {
      clearImmediate(priming);
      platformTasks.stop();
      await built.runner.stop();
      await built.mcp.close();
      built.services.identity.guard.shutdown();
      await new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections?.();
      await built.services.engine.stores.spans.flush(); // buffered spans (span-store.ts) before the store goes
      await built.store.close();
    },
  };
}
