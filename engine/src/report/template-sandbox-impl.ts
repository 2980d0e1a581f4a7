import { renderReport, validateTemplateSource, type ReportFormat } from './render';
import type { ReportModel } from './model';

/** A job the sandbox worker runs: render a model with an org template, or validate a source. */
export type SandboxJob =
  | { id: number; op: 'render'; model: ReportModel; format: ReportFormat; source: string }
  | { id: number; op: 'validate'; format: ReportFormat; source: string };

export type SandboxReply =
  | { type: 'result'; id: number; ok: true; content: string; contentType: string }
  | { type: 'result'; id: number; ok: false; message: string };

/** Runs one job inside the worker; never throws (failures are replies). */
export async function runJob(job: SandboxJob): Promise<SandboxReply> {
  try {
    if (job.op === 'validate') {
      await validateTemplateSource(job.source, job.format);
      return { type: 'result', id: job.id, ok: true, content: '', contentType: '' };
    }
    const rendered = await renderReport(job.model, { format: job.format, source: job.source });
    return { type: 'result', id: job.id, ok: true, content: rendered.content, contentType: rendered.contentType };
  } catch (error) {
    return { type: 'result', id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
