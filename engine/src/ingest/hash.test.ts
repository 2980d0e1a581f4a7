import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashUnit, UNIT_HASH_VERSION } from './hash';

const BASE = { analyzer: 'terraform', type: 'aws_s3_bucket', name: 'aws_s3_bucket.logs', action: 'create' as const, body: 'a = 1\nb = 2' };

describe('hashUnit', () => {
  it('is SHA-256 hex over the documented canonical JSON array', () => {
    const expected = createHash('sha256')
      .update(JSON.stringify([UNIT_HASH_VERSION, BASE.analyzer, BASE.type, BASE.name, BASE.action, BASE.body]), 'utf8')
      .digest('hex');
    expect(hashUnit(BASE)).toBe(expected);
    expect(hashUnit(BASE)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is stable for the same content', () => {
    expect(hashUnit({ ...BASE })).toBe(hashUnit(BASE));
  });

  it('changes when any hashed field changes', () => {
    const h = hashUnit(BASE);
    expect(hashUnit({ ...BASE, analyzer: 'blackhole' })).not.toBe(h);
    expect(hashUnit({ ...BASE, type: 'aws_s3_bucket_policy' })).not.toBe(h);
    expect(hashUnit({ ...BASE, name: 'aws_s3_bucket.other' })).not.toBe(h);
    expect(hashUnit({ ...BASE, action: 'update' })).not.toBe(h);
    expect(hashUnit({ ...BASE, body: 'a = 1\nb = 3' })).not.toBe(h);
  });

  it('cannot be forged by moving text across field boundaries', () => {
    expect(hashUnit({ ...BASE, type: 'a', name: 'b.c' })).not.toBe(hashUnit({ ...BASE, type: 'a.b', name: 'c' }));
  });

  it('normalises line endings and Unicode form of the body', () => {
    expect(hashUnit({ ...BASE, body: 'a = 1\r\nb = 2' })).toBe(hashUnit(BASE));
    expect(hashUnit({ ...BASE, body: 'caf\u0065\u0301' })).toBe(hashUnit({ ...BASE, body: 'caf\u00e9' }));
  });
});
