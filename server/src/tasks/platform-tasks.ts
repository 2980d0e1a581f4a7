import type { Logger } from '@planwarden/engine/core/logger';
import { applyRetentionTtl, retentionSteps } from '@planwarden/engine/admin/retention';
import { runSweep, SweepStore } from '@planwarden/engine/admin/sweep-store';
import type { ServerServices } from '../services';

/** How often the scheduler looks whether a sweep is due (each sweep gates itself by its interval). */
const TICK_MS = 60_000;

/**
 * POST /admin/retention/run (identity-api.md "Platform administration"): the retention sweep,
 * self-gated by `retention.sweep_interval_hours` across replicas; `retention.sweep_enabled`
 * false skips every run but a forced one. `{started_at, duration_ms, counts, error, skipped}`.
 */
export async function runRetention(services: ServerServices, force: boolean) {
  const retention = services.settings.retention();
  const sweeps = new SweepStore(services.engine.stores.store);
  if (!retention.sweep_enabled && !force) return skippedResult(sweeps, 'retention', services.engine.now());
  return runSweep(
    sweeps,
    'retention',
    retentionSteps(services.engine, () => services.settings.retention()),
    {
      now: services.engine.now,
      intervalMs: retention.sweep_interval_hours * 3_600_000,
      force,
    },
  );
}

/**
 * POST /admin/jobs/sweep: fails every queued or running job with no progress for over
 * `jobs.stuck_timeout_minutes` across orgs (the runner's sweep), then purges TTL-expired rows
 * (auth throttle counters, revoked tokens); self-gated by `jobs.sweep_interval_hours`.
 * `{jobs_marked_failed, expired_purged, started_at, duration_ms, error, skipped}`.
 */
export async function runJobsSweep(services: ServerServices, force: boolean) {
  const sweeps = new SweepStore(services.engine.stores.store);
  const enabled = services.settings.value<boolean>('jobs_sweep_enabled');
  const result =
    !enabled && !force
      ? await skippedResult(sweeps, 'jobs', services.engine.now())
      : await runSweep(
          sweeps,
          'jobs',
          {
            jobs_marked_failed: () => services.runner.sweepStuck(),
            expired_purged: (now) => services.engine.stores.store.purgeExpired(now),
          },
          { now: services.engine.now, intervalMs: services.config.jobs.sweep_interval_hours * 3_600_000, force },
        );
  return presentJobsSweep(result);
}

/** GET /admin/jobs/sweep-status: the last real run, or null. */
export async function jobsSweepStatus(services: ServerServices) {
  const last = await new SweepStore(services.engine.stores.store).last('jobs');
  if (!last) return null;
  const { skipped: _skipped, ...rest } = presentJobsSweep({ ...last, skipped: false });
  return rest;
}

/** GET /admin/retention/status: the last real run's result, or null. */
export async function retentionStatus(services: ServerServices) {
  const last = await new SweepStore(services.engine.stores.store).last('retention');
  return last ? { ...last, skipped: false } : null;
}

function presentJobsSweep(r: { started_at: string; duration_ms: number; counts: Record<string, number>; error: string | null; skipped: boolean }) {
  return {
    jobs_marked_failed: r.counts.jobs_marked_failed ?? 0,
    expired_purged: r.counts.expired_purged ?? 0,
    started_at: r.started_at,
    duration_ms: r.duration_ms,
    error: r.error,
    skipped: r.skipped,
  };
}

async function skippedResult(sweeps: SweepStore, sweep: string, now: Date) {
  const last = await sweeps.last(sweep);
  return { ...(last ?? { started_at: now.toISOString(), duration_ms: 0, counts: {}, error: null }), skipped: true };
}

/**
 * Starts the background side of platform administration in this process: the settings
 * refresh (so background work sees another replica's PATCH), the logger level, retention TTLs
 * pushed onto the running indexes when retention changes, and the scheduled retention and
 * jobs sweeps (safe on every replica: each run is claimed on the store). Returns `stop()`.
 */
export function startPlatformTasks(services: ServerServices, log: Logger): { stop(): void } {
  const { settings } = services;
  const applyLevel = () => {
    const target = log as unknown as { level?: string };
    if (typeof target.level === 'string' && target.level !== 'silent') target.level = services.config.logging.level;
  };
  settings.onChange((changed) => {
    if (changed.has('logging_level')) applyLevel();
    if (changed.has('retention_telemetry_days') || changed.has('retention_audit_days')) {
      applyRetentionTtl(services.engine, settings.retention()).catch((err: unknown) => log.error({ err }, 'retention TTL update failed'));
    }
  });
  applyLevel();
  const ready = applyRetentionTtl(services.engine, settings.retention());
  const tick = async () => {
    await settings.refresh();
    await runJobsSweep(services, false);
    await runRetention(services, false);
  };
  const timer = setInterval(() => {
    tick().catch((err: unknown) => log.error({ err }, 'platform sweep failed'));
  }, TICK_MS);
  timer.unref();
  ready.catch((err: unknown) => log.error({ err }, 'retention TTL setup failed'));
  return { stop: () => clearInterval(timer) };
}
