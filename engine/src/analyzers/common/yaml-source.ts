/**
 * YAML sources with line positions, shared by the YAML-reading analyzers (kubernetes,
 * github-actions, cloudformation). Parsing is the `yaml` package's (YAML 1.2 core schema, so
 * `on:` stays a string key); this module only maps node offsets to 1-based line numbers and slices
 * the verbatim source lines a unit body is made of, so evidence quoted by the model is a line of
 * the body.
 */
import { isScalar, LineCounter, parseAllDocuments, type Document, type Node, type Tags } from 'yaml';
import { ValidationError } from '../../core/errors';

export interface YamlSource {
  /** The source split on LF (CRLF/CR normalised). */
  readonly lines: readonly string[];
  /** Every document of the stream, in order (empty ones included). */
  readonly docs: readonly Document.Parsed[];
  /** 1-based line of a character offset. */
  lineOf(offset: number): number;
  /** 1-based last line of a node's value (trailing whitespace and newlines not counted). */
  endLineOf(node: Node): number;
}

/** Inclusive 1-based line span. */
export interface LineSpan {
  readonly start: number;
  readonly end: number;
}

/**
 * Parses a YAML stream (a JSON text is YAML too). `customTags` adds tags such as
 * CloudFormation's `!Ref`. Throws ValidationError (422) with the first parse error and its line
 * when any document has a syntax error; warnings (unknown tags) are ignored.
 */
export function parseYamlSource(text: string, customTags?: Tags): YamlSource {
  const normalised = text.replace(/\r\n?/g, '\n');
  const counter = new LineCounter();
  const docs = parseAllDocuments(normalised, { lineCounter: counter, customTags, prettyErrors: false, uniqueKeys: false });
  if (!Array.isArray(docs)) throw new ValidationError('The input is not YAML');
  for (const doc of docs) {
    const err = doc.errors[0];
    if (err) throw new ValidationError(`YAML syntax error at line ${counter.linePos(err.pos[0]).line}: ${err.message.split('\n')[0]}`);
  }
  const lineOf = (offset: number): number => counter.linePos(offset).line;
  const endLineOf = (node: Node): number => {
    const [start, valueEnd] = node.range ?? [0, 0];
    let last = valueEnd - 1;
    while (last > start && /\s/.test(normalised[last] ?? '')) last -= 1;
    return lineOf(Math.max(last, start));
  };
  return { lines: normalised.split('\n'), docs, lineOf, endLineOf };
}

/** True when a document holds nothing but comments or `null`. */
export function isEmptyDocument(doc: Document.Parsed): boolean {
  const contents = doc.contents;
  return contents === null || (isScalar(contents) && (contents.value === null || contents.value === ''));
}

/** The verbatim source lines of a span (1-based, inclusive). */
export function sliceLines(source: YamlSource, span: LineSpan): string[] {
  return source.lines.slice(span.start - 1, span.end);
}

/**
 * The span of a map entry: from its key's line to the last line of its value (the key line
 * alone for an entry without value).
 */
export function pairSpan(source: YamlSource, key: Node, value: Node | null | undefined): LineSpan {
  const start = source.lineOf(key.range?.[0] ?? 0);
  const end = value?.range ? Math.max(start, source.endLineOf(value)) : start;
  return { start, end };
}
