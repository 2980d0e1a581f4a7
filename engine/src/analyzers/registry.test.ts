import { describe, expect, it } from 'vitest';
import { blackholeAnalyzer } from './blackhole/index';
import { createAnalyzerRegistry } from './registry';
import { terraformAnalyzer } from './terraform/index';
import type { Analyzer } from '../core/unit';

const stub = (name: string, isFallback = false): Analyzer => ({
  name,
  description: name,
  version: '0.0.1',
  fileGlobs: [],
  defaultRuleVariant: null,
  isFallback,
});

describe('createAnalyzerRegistry', () => {
  it('registers the built-in analyzers, fallback last', () => {
    const registry = createAnalyzerRegistry();
    expect(registry.list().map((a) => a.name)).toEqual(['terraform', 'kubernetes', 'dockerfile', 'github-actions', 'cloudformation', 'blackhole']);
    expect(registry.get('terraform')).toBe(terraformAnalyzer);
    expect(registry.get('blackhole')).toBe(blackholeAnalyzer);
    expect(registry.get('helm')).toBeUndefined();
  });

  it('accepts more analyzers and keeps fallbacks after specific ones', () => {
    const registry = createAnalyzerRegistry([blackholeAnalyzer, terraformAnalyzer, stub('kubernetes')]);
    expect(registry.list().map((a) => a.name)).toEqual(['terraform', 'kubernetes', 'blackhole']);
  });

  it('refuses duplicate names', () => {
    expect(() => createAnalyzerRegistry([stub('x'), stub('x')])).toThrow(/Duplicate/);
  });
});
