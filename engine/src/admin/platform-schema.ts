import { schemaCollections } from '../stores';
import type { IndexSpec } from '../store/port';
import { SETTINGS_INDEXES } from './settings-store';
import { STORAGE_INDEXES } from './storage-store';
import { SWEEP_INDEXES } from './sweep-store';

/**
 * The platform-level collections (settings, sweeps, storage record) beside the tenant schema of
 * stores.ts: start-up, storage preparation, the switch and the migration all declare the same set.
 */
export const PLATFORM_INDEXES: Record<string, IndexSpec[]>[] = [SETTINGS_INDEXES, SWEEP_INDEXES, STORAGE_INDEXES];

/** Every collection the server's schema declares, tenant and platform (the migration copies them all). */
export function serverCollections(): string[] {
  return schemaCollections(PLATFORM_INDEXES);
}
