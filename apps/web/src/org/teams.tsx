import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { api } from '../api/client';
import { useSession } from '../auth/session';
import { Field } from '../ui/page';
import { ActionResult, QueryView } from '../ui/states';

/** Teams (GET/POST/DELETE /orgs/{org_id}/teams). */
export function Teams() {
  const session = useSession();
  const base = `/orgs/${encodeURIComponent(session.org_id!)}/teams`;
  const client = useQueryClient();
  const teams = useQuery({ queryKey: ['teams', session.org_id], queryFn: () => api.get<{ teams: { team_id: string; name: string }[] }>(base) });
  const create = useMutation({ mutationFn: (name: string) => api.post(base, { name }), onSuccess: () => client.invalidateQueries({ queryKey: ['teams'] }) });
  const remove = useMutation({
    mutationFn: (id: string) => api.delete(`${base}/${encodeURIComponent(id)}`),
    onSuccess: () => client.invalidateQueries({ queryKey: ['teams'] }),
  });
  const admin = session.can('admin');
  return (
    <>
      <QueryView query={teams} isEmpty={(d) => d.teams.length === 0} empty="No teams yet.">
        {(d) => (
          <ul className="plain">
            {d.teams.map((t) => (
              <li key={t.team_id}>
                {t.name}{' '}
                {admin ? (
                  <button type="button" onClick={() => remove.mutate(t.team_id)}>
                    Delete
                  </button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
      {admin ? (
        <form
          className="row"
          onSubmit={(e: FormEvent<HTMLFormElement>) => {
            e.preventDefault();
            create.mutate(String(new FormData(e.currentTarget).get('name')));
          }}
        >
          <Field label="New team name">
            <input name="name" required maxLength={200} />
          </Field>
          <button type="submit" disabled={create.isPending}>
            Create team
          </button>
        </form>
      ) : null}
      <ActionResult error={create.error ?? remove.error} />
    </>
  );
}
