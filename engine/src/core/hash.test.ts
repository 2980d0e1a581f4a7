import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { terraformAnalyzer } from '../analyzers/terraform';
import type { AnalysisUnit } from './unit';
import { decodeText } from './decode';
import { hashUnit, UNIT_HASH_VERSION } from './hash';
import { CORPUS } from '../../../tests/corpus';

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

/** The implementation before the fast paths, kept verbatim as the reference. */
function referenceHashUnit(input: { analyzer: string; type: string; name: string; action: string; body: string }): string {
  const body = input.body.replace(/\r\n?/g, '\n').normalize('NFC');
  const canonical = JSON.stringify([UNIT_HASH_VERSION, input.analyzer, input.type, input.name, input.action, body]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

describe('hashUnit fast paths (ASCII / no CR skip) = reference implementation', () => {
  it('on every unit of every corpus input the terraform analyzer reads', () => {
    const root = fileURLToPath(CORPUS);
    let checked = 0;
    for (const folder of ['tfplan-json', 'tfplan-text', 'diff-tf', 'diff-mixed']) {
      for (const file of readdirSync(join(root, folder)).sort()) {
        let units: AnalysisUnit[];
        try {
          units = terraformAnalyzer.ingest!(decodeText(readFileSync(join(root, folder, file))));
        } catch {
          continue; // not a terraform input (or a deliberately broken one)
        }
        for (const u of units) {
          expect(hashUnit({ analyzer: 'terraform', ...u })).toBe(referenceHashUnit({ analyzer: 'terraform', ...u }));
          expect(u.hash).toBe(referenceHashUnit({ analyzer: 'terraform', ...u }));
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('on bodies with CR, CRLF, NFD/NFC, astral, lone surrogates, controls and Latin-1', () => {
    const pieces = [
      'a',
      ' ',
      '\n',
      '\r',
      '\r\n',
      'é',
      'e\u0301',
      '\u00c5',
      'A\u030a',
      '\u1e9b\u0323',
      '\ud83d\ude00',
      '\ud800',
      '\udc00',
      '\u0000',
      '\u007f',
      '\u0080',
      '\u00ff',
      '\u0300',
      '\uac00',
      '\u1100\u1161',
      '"',
      '\\',
      '\u2028',
      '\ufeff',
      '\u212b',
    ];
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let n = 0; n < 5000; n += 1) {
      let body = '';
      for (let i = Math.floor(rand() * 12); i > 0; i -= 1) body += pieces[Math.floor(rand() * pieces.length)];
      const input = { ...BASE, body, name: rand() < 0.1 ? `n\u00e9${body.slice(0, 3)}` : BASE.name };
      expect(hashUnit(input)).toBe(referenceHashUnit(input));
    }
  });
});
