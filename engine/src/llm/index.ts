/**
 * LLM orchestration: providers, prompt, output parsing, retries, cost (DESIGN.md "LLM providers").
 */
export * from './types';
export * from './providers/index';
export * from './prompt';
export * from './parse-output';
export * from './retry';
export * from './analyse-unit';
export * from './cost';
export * from './output-schema';
export * from './tokens';
