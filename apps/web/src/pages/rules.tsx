import * as Tabs from '@radix-ui/react-tabs';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../api/client';
import { SEVERITIES, type CustomRule, type Proposal, type RuleHealth, type Severity } from '../api/types';
import { useSession } from '../auth/session';
import { Markdown } from '../ui/markdown';
import { Field, Page, SeverityBadge } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';

/** Built-in rulesets (GET /analyzers, GET /{analyzer}/rules → Markdown, sanitised). */
function BuiltIn() {
  const analyzers = useQuery({ queryKey: ['analyzers'], queryFn: () => api.get<{ analyzers: { name: string; description: string }[] }>('/analyzers') });
  const [name, setName] = useState('');
  const chosen = name || analyzers.data?.analyzers[0]?.name || '';
  const rules = useQuery({ queryKey: ['ruleset', chosen], enabled: !!chosen, queryFn: () => api.get<string>(`/${encodeURIComponent(chosen)}/rules`) });
  return (
    <QueryView query={analyzers} isEmpty={(d) => d.analyzers.length === 0} empty="No analyzers installed.">
      {(d) => (
        <>
          <Field label="Analyzer">
            <select value={chosen} onChange={(e) => setName(e.target.value)}>
              {d.analyzers.map((a) => (
                <option key={a.name}>{a.name}</option>
              ))}
            </select>
          </Field>
          <QueryView query={rules} unavailable={`A built-in ruleset for ${chosen}`}>
            {(md) => <Markdown source={md} label={`${chosen} ruleset`} />}
          </QueryView>
        </>
      )}
    </QueryView>
  );
}

/** One custom rule: enable toggle and an inline editor (PATCH /orgs/{org}/rules/{id}). */
function RuleRow({ rule, base, admin }: { rule: CustomRule; base: string; admin: boolean }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const patch = useMutation({
    mutationFn: (body: Partial<CustomRule>) => api.patch(`${base}/${encodeURIComponent(rule.rule_id)}`, body),
    onSuccess: () => {
      setEditing(false);
      void client.invalidateQueries({ queryKey: ['custom-rules'] });
    },
  });
  const save = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    patch.mutate({ title: String(f.get('title')), description: String(f.get('description')), severity: f.get('severity') as Severity });
  };
  return (
    <li className="rule">
      <div className="rule-head">
        <SeverityBadge severity={rule.severity} /> <code>{rule.rule_id}</code> <strong>{rule.title}</strong>{' '}
        <span className="muted">{rule.analyzers.join(', ')}</span>
        {admin ? (
          <>
            <label className="check">
              <input type="checkbox" checked={rule.enabled} onChange={(e) => patch.mutate({ enabled: e.target.checked })} /> enabled
            </label>
            <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
              {editing ? 'Close editor' : 'Edit'}
            </button>
          </>
        ) : (
          <span>{rule.enabled ? 'enabled' : 'disabled'}</span>
        )}
      </div>
      {editing ? (
        <form onSubmit={save} aria-label={`Edit ${rule.rule_id}`}>
          <Field label="Title">
            <input name="title" defaultValue={rule.title} required maxLength={200} />
          </Field>
          <Field label="Severity">
            <select name="severity" defaultValue={rule.severity}>
              {SEVERITIES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </Field>
          <Field label="Description (Markdown)">
            <textarea name="description" defaultValue={rule.description} rows={8} className="mono" />
          </Field>
          <button type="submit" disabled={patch.isPending}>
            Save rule
          </button>
        </form>
      ) : null}
      <ActionResult error={patch.error} />
    </li>
  );
}

/** Custom rules (GET/POST /orgs/{org}/rules, seed-builtin) and their categories. */
function Custom() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/rules`;
  const admin = session.can('admin');
  const client = useQueryClient();
  const rules = useQuery({ queryKey: ['custom-rules', session.org_id], queryFn: () => api.get<{ rules: CustomRule[] }>(base) });
  const categories = useQuery({
    queryKey: ['categories', session.org_id],
    queryFn: () => api.get<{ categories: { category_id: string; name: string }[] }>(`/orgs/${encodeURIComponent(session.org_id!)}/rule-categories`),
  });
  const seed = useMutation({ mutationFn: () => api.post(`${base}/seed-builtin`), onSuccess: () => client.invalidateQueries({ queryKey: ['custom-rules'] }) });
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api.post(base, body),
    onSuccess: () => client.invalidateQueries({ queryKey: ['custom-rules'] }),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    create.mutate({
      title: f.get('title'),
      description: f.get('description'),
      category: f.get('category'),
      severity: f.get('severity'),
      analyzers: String(f.get('analyzers'))
        .split(/[\s,]+/)
        .filter(Boolean),
    });
  };
  return (
    <>
      {admin ? (
        <div className="actions">
          <button type="button" onClick={() => seed.mutate()} disabled={seed.isPending}>
            Import built-in rules
          </button>
          <ActionResult error={seed.error} success={seed.isSuccess ? 'Built-in rules imported.' : null} />
        </div>
      ) : null}
      <QueryView query={rules} isEmpty={(d) => d.rules.length === 0} empty="No custom rules yet.">
        {(d) => (
          <ul className="plain rules">
            {d.rules.map((r) => (
              <RuleRow key={r.rule_id} rule={r} base={base} admin={admin} />
            ))}
          </ul>
        )}
      </QueryView>
      {admin ? (
        <details>
          <summary>New custom rule</summary>
          <form onSubmit={submit}>
            <Field label="Title">
              <input name="title" required maxLength={200} />
            </Field>
            <Field label="Category">
              <select name="category" required>
                {categories.data?.categories.map((c) => (
                  <option key={c.category_id} value={c.category_id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </Field>
            <Field label="Severity">
              <select name="severity" defaultValue="MEDIUM">
                {SEVERITIES.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            </Field>
            <Field label="Analyzers (comma separated)">
              <input name="analyzers" defaultValue="terraform" required />
            </Field>
            <Field label="Description (Markdown)">
              <textarea name="description" rows={6} className="mono" />
            </Field>
            <button type="submit" disabled={create.isPending}>
              Create rule
            </button>
            <ActionResult error={create.error} />
          </form>
        </details>
      ) : null}
    </>
  );
}

/** Rule health (GET /rule-health): precision per rule, calibrating rules marked. */
function Health() {
  const health = useQuery({ queryKey: ['rule-health'], queryFn: () => api.get<RuleHealth>('/rule-health') });
  return (
    <QueryView query={health} isEmpty={(d) => d.rules.length === 0} empty="No review feedback yet: precision appears once findings are triaged.">
      {(d) => (
        <table className="list">
          <caption className="visually-hidden">Rule health</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">Severity</th>
              <th scope="col">Confirmed</th>
              <th scope="col">Rejected</th>
              <th scope="col">Precision</th>
              <th scope="col">Calibrating</th>
            </tr>
          </thead>
          <tbody>
            {d.rules.map((r) => (
              <tr key={r.rule_id}>
                <td>
                  <code>{r.rule_id}</code> {r.title}
                </td>
                <td>{r.severity}</td>
                <td>{r.confirmed}</td>
                <td>{r.rejected}</td>
                <td>{r.precision === null ? 'too few samples' : `${Math.round(r.precision * 100)}%`}</td>
                <td>{r.calibrating ? 'yes' : 'no'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </QueryView>
  );
}

/**
 * A proposal's change as a diff against the rule as it stands (the org's custom rule when there
 * is one): `-` the current severity, `+` the proposed one; the description amendment is added after the
 * description's last lines (shown as context).
 */
function ProposalDiff({ proposal, rule }: { proposal: Proposal; rule: CustomRule | undefined }) {
  const { severity, description_amendment: amendment } = proposal.changes;
  return (
    // biome-ignore lint/a11y/useAriaPropsSupportedByRole: names the diff block for screen readers (and the browser tests)
    <pre className="diff" aria-label={`Proposed change to ${proposal.rule_id}`}>
      {severity && rule ? <span className="del">{`- severity: ${rule.severity}\n`}</span> : null}
      {severity ? <span className="add">{`+ severity: ${severity}\n`}</span> : null}
      {amendment && rule
        ? rule.description
            .trimEnd()
            .split('\n')
            .slice(-3)
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text; the line number is their identity
            .map((l, i) => <span key={`c${i}`} className="ctx">{`  ${l}\n`}</span>)
        : null}
      {amendment
        ? amendment.split('\n').map((l, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed text; the line number is their identity
            <span key={i} className="add">{`+ ${l}\n`}</span>
          ))
        : null}
    </pre>
  );
}

/** Rule proposals (GET /rule-proposals, refresh, apply, dismiss) with the proposed change shown as a diff. */
function Proposals() {
  const session = useSession();
  const client = useQueryClient();
  const admin = session.can('admin');
  const proposals = useQuery({ queryKey: ['proposals'], queryFn: () => api.get<{ proposals: Proposal[] } | Proposal[]>('/rule-proposals?status=pending') });
  const rules = useQuery({
    queryKey: ['custom-rules', session.org_id],
    queryFn: () => api.get<{ rules: CustomRule[] }>(`/orgs/${encodeURIComponent(session.org_id!)}/rules`),
  });
  const done = () => client.invalidateQueries({ queryKey: ['proposals'] });
  const refresh = useMutation({ mutationFn: () => api.post<{ created: number }>('/rule-proposals/refresh'), onSuccess: done });
  const decide = useMutation({
    mutationFn: ({ id, action }: { id: string; action: 'apply' | 'dismiss'; ruleId: string }) =>
      api.post(`/rule-proposals/${encodeURIComponent(id)}/${action}`),
    onSuccess: () => {
      void done();
      void client.invalidateQueries({ queryKey: ['custom-rules'] });
      void client.invalidateQueries({ queryKey: ['rule-health'] });
    },
  });
  const decided = decide.isSuccess
    ? `${decide.variables.action === 'apply' ? 'Applied: the rule' : 'Dismissed: the proposal for'} ${decide.variables.ruleId}${decide.variables.action === 'apply' ? ' is updated (see Custom rules).' : ' is closed.'}`
    : null;
  const list = (d: { proposals: Proposal[] } | Proposal[]) => (Array.isArray(d) ? d : d.proposals);
  return (
    <>
      {admin ? (
        <button type="button" onClick={() => refresh.mutate()} disabled={refresh.isPending}>
          Recompute proposals
        </button>
      ) : null}
      <ActionResult
        error={refresh.error ?? decide.error}
        success={decided ?? (refresh.isSuccess ? `Recomputed: ${refresh.data.created} new proposal${refresh.data.created === 1 ? '' : 's'}.` : null)}
      />
      <QueryView query={proposals} isEmpty={(d) => list(d).length === 0} empty="No pending proposals.">
        {(d) => (
          <ul className="plain">
            {list(d).map((p) => (
              <li key={p.proposal_id} className="proposal">
                <h3>
                  <code>{p.rule_id}</code>
                </h3>
                <p>
                  {p.evidence.confirmed} confirmed, {p.evidence.rejected} rejected, {p.evidence.severity_wrong} severity wrong
                  {p.evidence.precision === null ? '' : ` (precision ${Math.round(p.evidence.precision * 100)}%)`}.
                </p>
                <ProposalDiff proposal={p} rule={rules.data?.rules.find((r) => r.rule_id === p.rule_id)} />
                {p.reviewer_quotes.length ? (
                  <>
                    <p id={`notes-${p.proposal_id}`} className="muted">
                      Reviewer notes behind it:
                    </p>
                    <ul aria-labelledby={`notes-${p.proposal_id}`}>
                      {p.reviewer_quotes.map((q, i) => (
                        // biome-ignore lint/suspicious/noArrayIndexKey: quotes have no id and may repeat; the list is fixed per proposal
                        <li key={i}>{q}</li>
                      ))}
                    </ul>
                  </>
                ) : null}
                {admin ? (
                  <div className="actions">
                    <button
                      type="button"
                      className="primary"
                      disabled={decide.isPending}
                      aria-label={`Apply proposal for ${p.rule_id}`}
                      onClick={() => decide.mutate({ id: p.proposal_id, action: 'apply', ruleId: p.rule_id })}
                    >
                      Apply
                    </button>
                    <button
                      type="button"
                      disabled={decide.isPending}
                      aria-label={`Dismiss proposal for ${p.rule_id}`}
                      onClick={() => decide.mutate({ id: p.proposal_id, action: 'dismiss', ruleId: p.rule_id })}
                    >
                      Dismiss
                    </button>
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </>
  );
}

const TABS = [
  ['builtin', 'Built-in rulesets', BuiltIn],
  ['custom', 'Custom rules', Custom],
  ['health', 'Rule health', Health],
  ['proposals', 'Proposals', Proposals],
] as const;

/** Rules: built-in rulesets, custom rules, rule health and proposals (tab in `?tab=`). */
export default function Rules() {
  const [params, setParams] = useSearchParams();
  const tab = TABS.find(([id]) => id === params.get('tab'))?.[0] ?? 'builtin';
  return (
    <Page title="Rules">
      <Tabs.Root value={tab} onValueChange={(v) => setParams({ tab: v })}>
        <Tabs.List className="tabs" aria-label="Rule sections">
          {TABS.map(([id, label]) => (
            <Tabs.Trigger key={id} value={id}>
              {label}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        {TABS.map(([id, , View]) => (
          <Tabs.Content key={id} value={id} className="tab-panel">
            {tab === id ? <View /> : null}
          </Tabs.Content>
        ))}
      </Tabs.Root>
    </Page>
  );
}
