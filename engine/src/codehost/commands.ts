import type { EngineContext } from '../context/engine-context';
import { appendFeedback } from '../findings/feedback-service';
import type { ReasonCode, Verdict } from '../findings/feedback-store';
import type { CodehostSettings } from './client';
import { scanForInjection } from './injection-scanner';
import { pullNamespace } from './pull-analysis';

/**
 * Pull-request replies (analysis-api.md "Inbound: pull-request replies"):
 * `@<mention_prefix> <verdict> <rule_id>: <note>` records feedback with source
 * `codehost_command`. false-positive → rejected / false_positive, accept-risk → confirmed /
 * accepted_risk, missed (rule id optional) → missed. A rule the analysis lacks → unclear.
 * `trusted` is decided here, once (analysis-api.md "Feedback record").
 */

/** The fields of GitHub's `issue_comment` webhook payload read here. */
export interface IssueCommentEvent {
  readonly action: string;
  readonly issue: { readonly number: number; readonly pull_request?: unknown };
  readonly comment: {
    readonly id: number;
    readonly body: string;
    readonly user: { readonly login: string; readonly type?: string };
    readonly author_association?: string;
    readonly performed_via_github_app?: { readonly id: number | string } | null;
  };
  readonly repository: { readonly name: string; readonly owner: { readonly login: string }; readonly private?: boolean };
}

export interface ReplyCommand {
  readonly word: 'false-positive' | 'accept-risk' | 'missed';
  readonly ruleId: string | null;
  readonly note: string;
}

const WORDS: Record<ReplyCommand['word'], { verdict: Verdict; reason: ReasonCode | null }> = {
  'false-positive': { verdict: 'rejected', reason: 'false_positive' },
  'accept-risk': { verdict: 'confirmed', reason: 'accepted_risk' },
  missed: { verdict: 'missed', reason: null },
};

/** Associations of people with write access or membership (GitHub `author_association`). */
const INSIDERS = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The commands of a comment body, one per line starting with `@<prefix>`; lines that are not
 * a known command (or lack the rule id a verdict needs) are skipped. Pure.
 */
export function parseCommands(body: string, prefix: string): ReplyCommand[] {
  const line = new RegExp(
    `^\\s*@${escapeRegExp(prefix)}\\s+(false-positive|accept-risk|missed)\\b(?:\\s+([A-Za-z0-9][A-Za-z0-9._:/-]{0,127}))?\\s*(?::\\s*([\\s\\S]*))?$`,
    'i',
  );
  const commands: ReplyCommand[] = [];
  for (const text of body.split('\n')) {
    const match = line.exec(text.replace(/\r$/, ''));
    if (!match) continue;
    const word = match[1].toLowerCase() as ReplyCommand['word'];
    const ruleId = match[2] ?? null;
    if (word !== 'missed' && !ruleId) continue;
    commands.push({ word, ruleId, note: (match[3] ?? '').trim().slice(0, 4000) });
  }
  return commands;
}

/**
 * Records the feedback of a reply comment on a pull request of the org. Comments written by a
 * bot or an app (the service's own comment included) are never read. Feedback is untrusted
 * when the author is an outside contributor on a public repository or the comment trips the
 * injection scanner. Returns how many entries were written.
 */
export async function recordReplyCommands(ctx: EngineContext, settings: CodehostSettings, orgId: string, event: IssueCommentEvent): Promise<number> {
  if (event.action !== 'created' || !event.issue.pull_request) return 0;
  if (event.comment.performed_via_github_app || event.comment.user.type === 'Bot') return 0;
  const commands = parseCommands(event.comment.body, settings.mention_prefix);
  if (commands.length === 0) return 0;
  const owner = event.repository.owner.login;
  const repo = event.repository.name;
  const namespace = pullNamespace(owner, repo, event.issue.number);
  const pull = await ctx.stores.codehost.getPull(orgId, namespace);
  const job = pull?.last_job_id ? await ctx.stores.jobs.get(orgId, pull.last_job_id) : null;
  const findings = job && job.hashes.length > 0 ? await ctx.stores.findings.forResources(orgId, job.hashes) : [];
  const outsider = event.repository.private === false && !INSIDERS.has(event.comment.author_association ?? 'NONE');
  const tripped = settings.injection_scan_enabled && scanForInjection(event.comment.body).length > 0;
  const common = {
    source: 'codehost_command' as const,
    actor: `github:${event.comment.user.login}`,
    trusted: !outsider && !tripped,
    namespace,
    provenance: { provider: 'github', repo: `${owner}/${repo}`, pr_number: event.issue.number, comment_id: String(event.comment.id) },
  };
  let written = 0;
  for (const command of commands) {
    const { verdict, reason } = WORDS[command.word];
    const matching = findings.filter((f) => f.rule_id === command.ruleId);
    if (command.word !== 'missed' && matching.length === 0) {
      await appendFeedback(
        ctx,
        orgId,
        { resource_hash: '', rule_id: command.ruleId!, severity: null },
        { ...common, verdict: 'unclear', reason_code: reason, comment: command.note },
      );
      written += 1;
      continue;
    }
    const targets = matching.length > 0 ? matching : [{ resource_hash: '', rule_id: command.ruleId ?? '', severity: null }];
    for (const finding of targets) {
      await appendFeedback(ctx, orgId, finding, { ...common, verdict, reason_code: reason, comment: command.note });
      written += 1;
    }
  }
  return written;
}
