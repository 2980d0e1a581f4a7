import { randomBytes } from 'node:crypto';

let sequence = 0;

/**
 * A sortable random id `<prefix>_<12 hex wall-clock ms><6 hex sequence><8 hex random>`: ids made
 * later by one process sort after earlier ones, so "newest first" lists are stable even when a
 * fake clock stamps many records with the same created_at.
 */
export function sortableId(prefix: string): string {
  sequence = (sequence + 1) % 0x1000000;
  return `${prefix}_${Date.now().toString(16).padStart(12, '0')}${sequence.toString(16).padStart(6, '0')}${randomBytes(4).toString('hex')}`;
}
