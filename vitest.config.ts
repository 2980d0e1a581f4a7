import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/src/**/*.test.ts', 'server/src/**/*.test.ts', 'tests/**/*.test.ts'],
    globalSetup: ['tests/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default'],
  },
});
