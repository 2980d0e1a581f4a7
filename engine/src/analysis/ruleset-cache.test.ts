import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyzerRegistry } from '../analyzers/registry';
import type { EngineContext } from '../context/engine-context';
import { silentLogger } from '../core/logger';
import { requiresReviewRuleIds } from '../custom-rules/custom-rule-service';
import { SecretBox } from '../llm/secret-box';
import { DEFAULT_ORG_ID } from '../orgs/org-store';
import { parseRules } from '../rules/ruleset';
import { SqliteStore } from '../store/sqlite/store';
import { createStores, ensureSchema } from '../stores';
import { resolveRuleset } from './ruleset-service';

/**
 * Resolved rulesets are reused while an org's rules are unchanged (CustomRuleStore.snapshot).
 * Two contexts on one SQLite file stand for two replicas: every change made through one is in
 * the other's next ruleset, requires_review set and rule catalogue, with no restart.
 */

const NOW = () => new Date('2026-03-04T05:06:07.000Z');
const ORG = DEFAULT_ORG_ID;
let dir: string;
const stores: SqliteStore[] = [];
let a: EngineContext;
let b: EngineContext;

function context(store: SqliteStore): EngineContext {
  return { stores: createStores(store, new SecretBox('ruleset-cache-test-secret-material')), analyzers: createAnalyzerRegistry(), now: NOW, log: silentLogger };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'planwarden-ruleset-cache-'));
  for (let i = 0; i < 2; i += 1) stores.push(new SqliteStore(join(dir, 'planwarden.sqlite'), 'sqlite'));
  await ensureSchema(stores[0]);
  [a, b] = stores.map(context);
  await a.stores.orgs.ensure({ org_id: ORG, name: 'Default organization', slug: 'default' }, NOW().toISOString());
});
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const terraform = () => a.analyzers.get('terraform')!;
const ruleIds = (text: string) => parseRules(text).map((r) => r.rule_id);

describe('a ruleset resolved on one replica after a change made on another', () => {
  it('leaves out a built-in rule the other replica disabled, and has it back once re-enabled', async () => {
    const before = await resolveRuleset(a, ORG, terraform(), null);
    const victim = ruleIds(before.text)[0];
    expect(await resolveRuleset(a, ORG, terraform(), null)).toEqual(before);

    await b.stores.customRules.update(ORG, victim, { enabled: false, updated_at: NOW().toISOString() });
    const disabled = await resolveRuleset(a, ORG, terraform(), null);
    expect(ruleIds(disabled.text)).not.toContain(victim);
    expect(disabled.digest).not.toBe(before.digest);

    await b.stores.customRules.update(ORG, victim, { enabled: true, updated_at: NOW().toISOString() });
    expect(await resolveRuleset(a, ORG, terraform(), null)).toEqual(before);
  });

  it('holds a custom rule created there, under its category name as renamed there, until it is deleted', async () => {
    await b.stores.customRules.insertCategory({
      org_id: ORG,
      category_id: 'house-rules',
      name: 'House rules',
      description: '',
      is_builtin_seed: false,
      created_by: null,
      created_at: NOW().toISOString(),
      updated_at: null,
    });
    await b.stores.customRules.insert({
      org_id: ORG,
      rule_id: 'HOUSE-TAGS-MISSING',
      title: 'Every resource carries an owner tag',
      description: 'Look for: resources without an `owner` tag.',
      category: 'house-rules',
      severity: 'LOW',
      analyzers: ['terraform'],
      rule_type: null,
      enabled: true,
      requires_review: true,
      is_builtin_seed: false,
      created_by: null,
      created_at: NOW().toISOString(),
      updated_at: null,
    });
    const created = await resolveRuleset(a, ORG, terraform(), null);
    expect(ruleIds(created.text)).toContain('HOUSE-TAGS-MISSING');
    expect(created.text).toContain('House rules');
    expect(await requiresReviewRuleIds(a, ORG)).toContain('HOUSE-TAGS-MISSING');

    await b.stores.customRules.updateCategory(ORG, 'house-rules', { name: 'Platform team rules', updated_at: NOW().toISOString() });
    const renamed = await resolveRuleset(a, ORG, terraform(), null);
    expect(renamed.text).toContain('Platform team rules');
    expect(renamed.text).not.toContain('House rules');

    await b.stores.customRules.update(ORG, 'HOUSE-TAGS-MISSING', { requires_review: false, updated_at: NOW().toISOString() });
    expect(await requiresReviewRuleIds(a, ORG)).not.toContain('HOUSE-TAGS-MISSING');

    await b.stores.customRules.delete(ORG, 'HOUSE-TAGS-MISSING');
    expect(ruleIds((await resolveRuleset(a, ORG, terraform(), null)).text)).not.toContain('HOUSE-TAGS-MISSING');
  });

  it('keeps two stores with the same org apart: an edit in one never shows in the other', async () => {
    const other = new SqliteStore(':memory:', 'memory');
    stores.push(other);
    await ensureSchema(other);
    const c = context(other);
    await c.stores.orgs.ensure({ org_id: ORG, name: 'Default organization', slug: 'default' }, NOW().toISOString());
    const shared = await resolveRuleset(a, ORG, terraform(), null);
    expect(await resolveRuleset(c, ORG, terraform(), null)).toEqual(shared);

    const victim = ruleIds(shared.text)[1];
    await c.stores.customRules.update(ORG, victim, { enabled: false, updated_at: NOW().toISOString() });
    expect(ruleIds((await resolveRuleset(c, ORG, terraform(), null)).text)).not.toContain(victim);
    expect(await resolveRuleset(a, ORG, terraform(), null)).toEqual(shared);
  });
});
