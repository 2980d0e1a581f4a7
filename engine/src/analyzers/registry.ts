/**
 * Analyzer registry (analysis-api.md "What the service does" 2: analyzers are pluggable
 * backends registered on the server). Order matters: auto-routing gives a diff file to the first
 * enabled analyzer whose globs match, so specific analyzers come first and the fallback last.
 * To add an analyzer (kubernetes, dockerfile, ...): implement `Analyzer` in its own folder and
 * add it to BUILT_IN_ANALYZERS before `blackholeAnalyzer`.
 */
import { blackholeAnalyzer } from './blackhole/index';
import { cloudformationAnalyzer } from './cloudformation/index';
import { dockerfileAnalyzer } from './dockerfile/index';
import { githubActionsAnalyzer } from './github-actions/index';
import { kubernetesAnalyzer } from './kubernetes/index';
import { terraformAnalyzer } from './terraform/index';
import type { Analyzer } from '../core/unit';

export const BUILT_IN_ANALYZERS: readonly Analyzer[] = [
  terraformAnalyzer,
  kubernetesAnalyzer,
  dockerfileAnalyzer,
  githubActionsAnalyzer,
  cloudformationAnalyzer,
  blackholeAnalyzer,
];

export interface AnalyzerRegistry {
  /** All analyzers in routing order (fallback last). */
  list(): readonly Analyzer[];
  /** The analyzer with this name, or undefined. */
  get(name: string): Analyzer | undefined;
}

/**
 * Builds a registry over `analyzers` (default: the built-ins). Fallback analyzers are moved to
 * the end so they never shadow a specific one. Throws Error on duplicate names (a programming
 * error at startup, not a request error).
 */
export function createAnalyzerRegistry(analyzers: readonly Analyzer[] = BUILT_IN_ANALYZERS): AnalyzerRegistry {
  const ordered = [...analyzers.filter((a) => !a.isFallback), ...analyzers.filter((a) => a.isFallback)];
  const byName = new Map<string, Analyzer>();
  for (const analyzer of ordered) {
    if (byName.has(analyzer.name)) throw new Error(`Duplicate analyzer name: ${analyzer.name}`);
    byName.set(analyzer.name, analyzer);
  }
  return {
    list: () => ordered,
    get: (name) => byName.get(name),
  };
}
