import type { AnalysisDeps } from '@planwarden/engine/analysis/analyze-service';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import type { SecretBox } from '@planwarden/engine/llm/secret-box';
import type { IdentityServices } from './auth/identity';
import type { Config } from './config/config';
import type { SettingsService } from './config/settings-service';
import type { JobRunner } from './jobs/runner';

/** Everything route modules may call, built once at startup. */
export interface ServerServices {
  readonly config: Config;
  readonly engine: EngineContext;
  readonly analysis: AnalysisDeps;
  readonly runner: JobRunner;
  readonly secretBox: SecretBox;
  /** Sessions, authentication and brute-force counters (identity-api.md "Authentication"). */
  readonly identity: IdentityServices;
  /** Platform settings at runtime (PATCH /admin/settings); `config` above is its live view. */
  readonly settings: SettingsService;
}
