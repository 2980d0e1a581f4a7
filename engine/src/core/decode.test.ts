import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeText } from './decode';
import { CORPUS } from '../../../tests/corpus';

const corpusBytes = (rel: string): Buffer => readFileSync(fileURLToPath(new URL(rel, CORPUS)));

const SAMPLE = '{"format_version": "1.1", "note": "é ✓"}\r\n';

function utf16be(text: string): Buffer {
  return Buffer.from(text, 'utf16le').swap16();
}

describe('decodeText', () => {
  it('passes plain UTF-8 through and strips a UTF-8 BOM', () => {
    expect(decodeText(Buffer.from(SAMPLE, 'utf8'))).toBe(SAMPLE);
    expect(decodeText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(SAMPLE, 'utf8')]))).toBe(SAMPLE);
  });

  it('decodes UTF-16LE and UTF-16BE with a BOM', () => {
    expect(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(SAMPLE, 'utf16le')]))).toBe(SAMPLE);
    expect(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(SAMPLE)]))).toBe(SAMPLE);
  });

  it('detects BOM-less UTF-16 of either byte order by NUL bytes', () => {
    expect(decodeText(Buffer.from(SAMPLE, 'utf16le'))).toBe(SAMPLE);
    expect(decodeText(utf16be(SAMPLE))).toBe(SAMPLE);
  });

  it('accepts a Uint8Array as well as a Buffer', () => {
    expect(decodeText(new Uint8Array(Buffer.from(SAMPLE, 'utf8')))).toBe(SAMPLE);
  });

  it('strips a BOM from a string and leaves other strings alone', () => {
    expect(decodeText(`\ufeff${SAMPLE}`)).toBe(SAMPLE);
    expect(decodeText(SAMPLE)).toBe(SAMPLE);
  });

  it('repairs a UTF-16 body that was decoded as Latin-1 or as UTF-8 upstream', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a": 1}\n', 'utf16le')]);
    expect(decodeText(bytes.toString('latin1'))).toBe('{"a": 1}\n');
    expect(decodeText(bytes.toString('utf8'))).toBe('{"a": 1}\n');
  });

  it('decodes the corpus Windows plan (UTF-16LE with BOM, CRLF)', () => {
    const text = decodeText(corpusBytes('tfplan-json/checkov-aws-utf16le-bom-windows.json'));
    expect(text.startsWith('{')).toBe(true);
    expect(text).not.toContain('\u0000');
    expect(() => JSON.parse(text)).not.toThrow();
  });

  it('never throws on invalid UTF-8 (replacement characters instead)', () => {
    expect(decodeText(Buffer.from([0x61, 0xff, 0x62]))).toBe('a\ufffdb');
  });
});
