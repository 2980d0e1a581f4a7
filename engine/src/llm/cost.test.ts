import { describe, expect, it } from 'vitest';
import { costUsd, CURATED_MODELS } from './cost';
import { LLM_BACKENDS } from './types';

describe('CURATED_MODELS', () => {
  it('holds 9 unique rows, 3 per provider, ollama free', () => {
    expect(CURATED_MODELS).toHaveLength(9);
    for (const backend of LLM_BACKENDS) {
      expect(CURATED_MODELS.filter((m) => m.llm_backend === backend)).toHaveLength(3);
    }
    expect(new Set(CURATED_MODELS.map((m) => `${m.llm_backend}/${m.model}`)).size).toBe(9);
    for (const m of CURATED_MODELS.filter((row) => row.llm_backend === 'ollama')) {
      expect([m.input_price_per_1m_usd, m.output_price_per_1m_usd]).toEqual([0, 0]);
    }
    for (const m of CURATED_MODELS.filter((row) => row.llm_backend !== 'ollama')) {
      expect(m.input_price_per_1m_usd).toBeGreaterThan(0);
      expect(m.output_price_per_1m_usd).toBeGreaterThan(m.input_price_per_1m_usd);
    }
  });
});

describe('costUsd', () => {
  it('prices input and output per million tokens', () => {
    const row = { input_price_per_1m_usd: 2.5, output_price_per_1m_usd: 10 };
    expect(costUsd(row, 1_000_000, 0)).toBe(2.5);
    expect(costUsd(row, 0, 1_000_000)).toBe(10);
    expect(costUsd(row, 2_000, 500)).toBeCloseTo(0.01, 12);
    expect(costUsd(row, 0, 0)).toBe(0);
  });

  it('is 0 for ollama', () => {
    const row = CURATED_MODELS.find((m) => m.llm_backend === 'ollama')!;
    expect(costUsd(row, 123_456, 7_890)).toBe(0);
  });

  it('rejects negative or non-finite counts', () => {
    const row = CURATED_MODELS[0];
    expect(() => costUsd(row, -1, 0)).toThrow(RangeError);
    expect(() => costUsd(row, 0, Number.NaN)).toThrow(RangeError);
  });
});
