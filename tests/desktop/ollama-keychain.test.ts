import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Keychain, KeychainUnavailableError } from '../../apps/desktop/src/core/keychain';
import { discoverOllama, ollamaBaseUrl } from '../../apps/desktop/src/core/ollama';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { fakeSafeStorage } from './fake-safe-storage';
import { unusedPort } from './ports';

const fakes: FakeProvider[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('Ollama discovery', () => {
  it('lists the models installed in Ollama (GET /api/tags on the fake)', async () => {
    const fake = await startFakeProvider({ ollamaModels: ['llama3.1:8b', 'qwen2.5-coder:7b'] });
    fakes.push(fake);
    const found = await discoverOllama({ host: fake.ollamaHost });
    expect(found).toMatchObject({ status: 'ready', models: [{ name: 'llama3.1:8b' }, { name: 'qwen2.5-coder:7b' }] });
    expect(fake.requests.map((r) => r.path)).toEqual(['/api/tags']);
  });

  it('says how to pull a model when Ollama has none', async () => {
    const fake = await startFakeProvider({ ollamaModels: [] });
    fakes.push(fake);
    const found = await discoverOllama({ host: fake.ollamaHost.replace('http://', '') });
    expect(found.status).toBe('no_model');
    expect(found.status === 'no_model' && found.message).toMatch(/ollama pull/);
  });

  it('says how to install Ollama when nothing answers at OLLAMA_HOST', async () => {
    const port = await unusedPort();
    const found = await discoverOllama({ host: `127.0.0.1:${port}` });
    expect(found).toMatchObject({ status: 'not_running', host: `http://127.0.0.1:${port}` });
    expect(found.status === 'not_running' && found.message).toMatch(/ollama\.com\/download/);
  });

  it('reads OLLAMA_HOST the way Ollama does', () => {
    expect(ollamaBaseUrl(null)).toBe('http://127.0.0.1:11434');
    expect(ollamaBaseUrl('0.0.0.0')).toBe('http://127.0.0.1:11434');
    expect(ollamaBaseUrl('localhost:9999')).toBe('http://localhost:9999');
    expect(ollamaBaseUrl('https://ollama.example.com')).toBe('https://ollama.example.com');
  });
});

describe('the keychain wrapper', () => {
  const file = () => {
    const d = mkdtempSync(join(tmpdir(), 'pw-keychain-'));
    dirs.push(d);
    return join(d, 'credentials.json');
  };

  it('stores a key sealed by safeStorage, never in plain text, and reads it back', () => {
    const path = file();
    const keychain = new Keychain(fakeSafeStorage(true), path);
    keychain.set('openai', 'sk-live-secret-123');
    expect(readFileSync(path, 'utf8')).not.toContain('sk-live-secret-123');
    expect(keychain.get('openai')).toBe('sk-live-secret-123');
    expect(keychain.names()).toEqual(['openai']);
    expect(keychain.delete('openai')).toBe(true);
    expect(keychain.get('openai')).toBeNull();
  });

  it('refuses to store anything when safeStorage is unavailable, and writes no file', () => {
    const path = file();
    const keychain = new Keychain(fakeSafeStorage(false), path);
    expect(() => keychain.set('anthropic', 'sk-ant-secret')).toThrow(KeychainUnavailableError);
    expect(existsSync(path)).toBe(false);
    expect(keychain.unavailableReason()).toMatch(/not available/);
  });

  it("refuses Linux's basic_text fallback (a hard-coded password is plain text in effect)", () => {
    const path = file();
    const keychain = new Keychain(fakeSafeStorage(true, 'basic_text'), path);
    expect(() => keychain.set('openai', 'sk-live-secret-123')).toThrow(/keyring/);
    expect(existsSync(path)).toBe(false);
  });
});
