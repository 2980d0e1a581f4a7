import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from './config';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'planwarden-config-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('loadConfig', () => {
  it('gives the documented defaults with no file and no environment', () => {
    const config = loadConfig({ env: {}, cwd: tempDir() });
    expect(config.server).toMatchObject({ host: '127.0.0.1', port: 8000, max_input_size_mb: 10, sync_analysis_max_units: 5 });
    expect(config.storage.backend).toBe('sqlite');
    expect(config.data_dir).toBe('./data');
    expect(config.auth.api_key).toBeNull();
    expect(config.analysis).toMatchObject({
      max_concurrent_units: 4,
      llm_timeout_seconds: 120,
      llm_max_attempts: 3,
      llm_retry_backoff_seconds: 1,
      llm_max_output_tokens: 4096,
    });
  });

  it('reads a YAML file and lets PLANWARDEN_* variables override it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'planwarden.config.yaml'), 'server:\n  port: 9000\nanalysis:\n  max_concurrent_units: 8\n');
    const config = loadConfig({
      cwd: dir,
      env: {
        PLANWARDEN_ANALYSIS_MAX_CONCURRENT_UNITS: '2',
        PLANWARDEN_HOST: '0.0.0.0',
        PLANWARDEN_DATA_DIR: '/var/lib/pw',
        PLANWARDEN_STORAGE_BACKEND: 'memory',
        PLANWARDEN_AUTH_API_KEY: 'k',
      },
    });
    expect(config.server.port).toBe(9000);
    expect(config.server.host).toBe('0.0.0.0');
    expect(config.analysis.max_concurrent_units).toBe(2);
    expect(config.data_dir).toBe('/var/lib/pw');
    expect(config.storage.backend).toBe('memory');
    expect(config.auth.api_key).toBe('k');
  });

  it("reads a JSON file named by PLANWARDEN_CONFIG and the providers' standard variables", () => {
    const dir = tempDir();
    const file = join(dir, 'custom.json');
    writeFileSync(file, JSON.stringify({ server: { sync_analysis_max_units: 1 } }));
    const config = loadConfig({
      cwd: dir,
      env: {
        PLANWARDEN_CONFIG: file,
        OPENAI_BASE_URL: 'http://127.0.0.1:1/v1',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:2',
        OLLAMA_HOST: 'http://127.0.0.1:3',
        PLANWARDEN_PORT: '8123',
      },
    });
    expect(config.server.sync_analysis_max_units).toBe(1);
    expect(config.server.port).toBe(8123);
    expect(config.llm).toEqual({ openai_base_url: 'http://127.0.0.1:1/v1', anthropic_base_url: 'http://127.0.0.1:2', ollama_host: 'http://127.0.0.1:3' });
  });

  it('refuses out-of-range values and names the field', () => {
    expect(() => loadConfig({ cwd: tempDir(), env: { PLANWARDEN_ANALYSIS_MAX_CONCURRENT_UNITS: '64' } })).toThrow(/analysis\.max_concurrent_units/);
    expect(() => loadConfig({ cwd: tempDir(), env: { PLANWARDEN_STORAGE_BACKEND: 'postgres' } })).toThrow(/storage\.backend/);
    expect(() => loadConfig({ cwd: tempDir(), env: { PLANWARDEN_SERVER_MAX_INPUT_SIZE_MB: '0' } })).toThrow(/server\.max_input_size_mb/);
  });
});
