import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api } from '../api/client';
import { fieldError, getOrNull } from '../api/optional';
import { SEVERITIES, type RunTaskBody, type RunTaskConfig } from '../api/types';
import { useSession } from '../auth/session';
import { ConfirmButton } from '../ui/confirm';
import { CopyButton } from '../ui/copy';
import { ModelField, modelKey, splitModelKey } from '../ui/model-select';
import { Field, when } from '../ui/page';
import { ActionResult, Empty, QueryView } from '../ui/states';

/**
 * Organization → Run tasks: the HCP Terraform run-task settings (PUT/GET/DELETE
 * /orgs/{org_id}/integrations/run-task, docs/decisions.md "Run tasks") and the endpoint URL to
 * paste into HCP Terraform. The HMAC key is write-only.
 */
export function RunTasks() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/integrations/run-task`;
  const client = useQueryClient();
  const key = ['run-task', session.org_id];
  const config = useQuery({ queryKey: key, queryFn: () => getOrNull<RunTaskConfig>(base) });
  const save = useMutation({ mutationFn: (body: RunTaskBody) => api.put<RunTaskConfig>(base, body), onSuccess: (saved) => client.setQueryData(key, saved) });
  const remove = useMutation({ mutationFn: () => api.delete(base), onSuccess: () => client.setQueryData(key, null) });
  const endpoint = `${window.location.origin}/api/v1/run-tasks/${encodeURIComponent(session.org_id!)}`;
  return (
    <QueryView query={config}>
      {(c) => {
        const submit = (e: FormEvent<HTMLFormElement>) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const hmac = String(f.get('hmac_key') ?? '');
          save.mutate({
            ...splitModelKey(String(f.get('model'))),
            gate_severity: f.get('gate_severity') as RunTaskBody['gate_severity'],
            ...(hmac ? { hmac_key: hmac } : {}),
          });
        };
        const url = c ? `${window.location.origin}${c.endpoint_path}` : endpoint;
        return (
          <>
            {c ? (
              <p>
                Configured {when(c.created_at)}
                {c.updated_at ? `, changed ${when(c.updated_at)}` : ''}: {c.llm_backend} · {c.model}, fails the run at {c.gate_severity} or above.
              </p>
            ) : (
              <Empty>No run task: HCP Terraform runs are not checked yet.</Empty>
            )}
            <p>In HCP Terraform, create a run task with this endpoint URL and the same HMAC key (use this server's public address if it differs):</p>
            <p>
              <code data-testid="run-task-url">{url}</code> <CopyButton value={url} label="Copy endpoint URL" />
            </p>
            <form className="form-grid" onSubmit={submit} key={c?.updated_at ?? 'new'} aria-label="Run task settings">
              <Field
                label="HMAC key"
                hint={c ? 'A key is stored, never shown. Type a new one to replace it.' : 'At least 16 characters; paste the same key into HCP Terraform.'}
                error={fieldError(save.error, 'hmac_key')}
              >
                <input name="hmac_key" type="password" minLength={16} maxLength={512} required={!c} autoComplete="off" />
              </Field>
              <ModelField defaultValue={c ? modelKey(c.llm_backend, c.model) : undefined} hint="Uses the organization's stored credential for this provider." />
              <Field label="Fail the run at">
                <select name="gate_severity" defaultValue={c?.gate_severity ?? 'HIGH'}>
                  {SEVERITIES.map((s) => (
                    <option key={s}>{s}</option>
                  ))}
                </select>
              </Field>
              <button type="submit" disabled={save.isPending}>
                {c ? 'Save run task' : 'Set up run task'}
              </button>
            </form>
            <ActionResult error={fieldError(save.error, 'hmac_key') ? null : (save.error ?? remove.error)} success={save.isSuccess ? 'Saved.' : null} />
            {c ? (
              <ConfirmButton label="Remove run task" question="Remove the run task settings?" danger onConfirm={() => remove.mutate()}>
                <p>HCP Terraform's calls are refused afterwards (404) until it is set up again; remove the run task there too.</p>
              </ConfirmButton>
            ) : null}
          </>
        );
      }}
    </QueryView>
  );
}
