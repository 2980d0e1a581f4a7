import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { corpusFile, corpusFiles } from '../../../../tests/corpus';
import { expectCorpusUnits } from '../../../../tests/helpers/analyzer-testing';
import { dockerfileAnalyzer } from './index';

/** Stages counted independently: lines that start with FROM. */
const fromLines = (text: string): string[] => text.split(/\r?\n/).filter((l) => /^\s*FROM\s/i.test(l));

describe('dockerfile analyzer', () => {
  it.each(corpusFiles('dockerfile'))('%s: one unit per stage, stable hashes, bodies of source lines', (rel) => {
    const text = corpusFile(rel).toString('utf8');
    const froms = fromLines(text);
    const units = expectCorpusUnits(dockerfileAnalyzer, rel, froms.length);
    for (const [i, u] of units.entries()) expect(u.body.split('\n')).toContain(froms[i]);
    expect(dockerfileAnalyzer.sniff!(text)).toMatchObject({ kind: 'dockerfile' });
  });

  it('names stages by alias, carries global ARGs, keeps continuations and heredocs inside their stage', () => {
    const text = [
      '# syntax=docker/dockerfile:1',
      'ARG BASE=node:latest',
      'FROM ${BASE} AS build',
      'RUN curl -fsSL https://x.example/i.sh \\',
      '  # a comment inside a continuation',
      '  | sh',
      'RUN <<EOF',
      'FROM is not an instruction here',
      'EOF',
      '',
      'FROM gcr.io/distroless/nodejs20',
      'COPY --from=build /app /app',
      'USER 0',
    ].join('\n');
    const units = dockerfileAnalyzer.ingest!(text, { path: 'web/Dockerfile' });
    expect(units.map((u) => u.name)).toEqual(['web/Dockerfile#build', 'web/Dockerfile#stage-1']);
    expect(units[0].body).toContain('ARG BASE=node:latest');
    expect(units[0].body).toContain('  | sh');
    expect(units[0].metadata).toMatchObject({ base_image: '${BASE}', start_line: 3, end_line: 9, final_stage: false });
    expect(units[1].body).toContain('USER 0');
    expect(units[1].body).toContain('ARG BASE=node:latest');
  });

  it('refuses text that is not a Dockerfile', () => {
    expect(() => dockerfileAnalyzer.ingest!('#!/bin/sh\necho hi\n')).toThrow(ValidationError);
    expect(() => dockerfileAnalyzer.ingest!('RUN make\nFROM x\n')).toThrow(/first instruction/);
    expect(dockerfileAnalyzer.sniff!('# Notes\n\nFROM here we go on\nto talk about it\n')).toBeNull();
  });
});
