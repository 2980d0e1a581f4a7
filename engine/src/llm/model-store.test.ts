import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../store/sqlite/store';
import { ModelStore } from './model-store';

const CURATED = [
  { llm_backend: 'openai', model: 'gpt-a', input_price_per_1m_usd: 1, output_price_per_1m_usd: 2 },
  { llm_backend: 'openai', model: 'gpt-b', input_price_per_1m_usd: 3, output_price_per_1m_usd: 4 },
  { llm_backend: 'ollama', model: 'local', input_price_per_1m_usd: 0, output_price_per_1m_usd: 0 },
];

describe('model catalogue seed at every start', () => {
  let store: SqliteStore;
  let models: ModelStore;
  beforeEach(() => {
    store = new SqliteStore(':memory:', 'memory');
    models = new ModelStore(store);
  });
  afterEach(() => store.close());

  it('adds the curated rows once, keeps an admin edit, and never brings back a removed model', async () => {
    await models.seed(CURATED, '2026-01-01T00:00:00.000Z');
    expect((await models.list()).map((m) => m.model)).toEqual(['local', 'gpt-a', 'gpt-b']);
    await models.update('openai', 'gpt-a', { enabled: false, input_price_per_1m_usd: 9 }, '2026-01-02T00:00:00.000Z');
    await models.remove('openai', 'gpt-b', '2026-01-02T00:00:00.000Z');

    await models.seed(CURATED, '2026-01-03T00:00:00.000Z');
    const after = await models.list();
    expect(after.map((m) => m.model)).toEqual(['local', 'gpt-a']);
    expect(after.find((m) => m.model === 'gpt-a')).toMatchObject({ enabled: false, input_price_per_1m_usd: 9, created_at: '2026-01-01T00:00:00.000Z' });
  });

  it('adds a model that a newer release curates', async () => {
    await models.seed(CURATED.slice(0, 1), '2026-01-01T00:00:00.000Z');
    await models.seed(CURATED, '2026-02-01T00:00:00.000Z');
    const rows = await models.list();
    expect(rows.map((m) => [m.model, m.created_at])).toEqual([
      ['local', '2026-02-01T00:00:00.000Z'],
      ['gpt-a', '2026-01-01T00:00:00.000Z'],
      ['gpt-b', '2026-02-01T00:00:00.000Z'],
    ]);
  });
});
