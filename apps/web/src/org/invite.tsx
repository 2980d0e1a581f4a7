import * as Dialog from '@radix-ui/react-dialog';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ApiError } from '../api/client';
import type { AddMemberBody, CreateInviteBody } from '../api/types';
import { useSession } from '../auth/session';
import { CopyButton } from '../ui/copy';
import { Field } from '../ui/page';
import { ActionResult } from '../ui/states';

/** The roles an admin can hand out (identity-api.md: never owner through an invitation or an add). */
export const ASSIGNABLE = ['viewer', 'member', 'admin'] as const;

type How = 'link' | 'add';

/** `joinUrl` as an absolute address (the server answers a relative one when it has no public base URL). */
export function absoluteLink(joinUrl: string): string {
  return new URL(joinUrl, window.location.origin).toString();
}

/** What the dialog made: a link to pass on, or the account added at once. */
type Outcome = { kind: 'link'; url: string; email: string | null } | { kind: 'added'; email: string };

/**
 * One form for both ways in: an invitation link (POST /orgs/{org_id}/invites, open or addressed
 * to an e-mail; the absolute link is shown once, to copy) or adding an existing account at once
 * (POST /orgs/{org_id}/members; identity-api.md "Members" and "Invitations").
 */
function InviteForm({ onDone }: { onDone: (outcome: Outcome) => void }) {
  const session = useSession();
  const org = `/orgs/${encodeURIComponent(session.org_id!)}`;
  const client = useQueryClient();
  const [how, setHow] = useState<How>('link');
  const make = useMutation({
    mutationFn: async ({ email, role }: { email: string; role: CreateInviteBody['role'] }): Promise<Outcome> => {
      if (how === 'add') {
        await api.post(`${org}/members`, { email, role } satisfies AddMemberBody);
        return { kind: 'added', email };
      }
      const made = await api.post<{ join_url: string }>(`${org}/invites`, { role, ...(email ? { email } : {}) } satisfies CreateInviteBody);
      return { kind: 'link', url: absoluteLink(made.join_url), email: email || null };
    },
    onSuccess: (outcome) => {
      void client.invalidateQueries({ queryKey: [outcome.kind === 'added' ? 'members' : 'invites'] });
      onDone(outcome);
    },
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    make.mutate({ email: String(f.get('email') ?? '').trim(), role: f.get('role') as CreateInviteBody['role'] });
  };
  // An add of an unknown e-mail: the person has no account yet, so a link is the way in.
  const noAccount = how === 'add' && make.error instanceof ApiError && make.error.status === 404;
  return (
    <form onSubmit={submit} aria-label="Invite">
      <fieldset>
        <legend>How they join</legend>
        <label className="check block">
          <input type="radio" name="how" value="link" checked={how === 'link'} onChange={() => setHow('link')} />
          Invitation link <span className="hint">they join when they open it; with an e-mail, only that account can use it</span>
        </label>
        <label className="check block">
          <input type="radio" name="how" value="add" checked={how === 'add'} onChange={() => setHow('add')} />
          Add an existing account now <span className="hint">for someone already registered on this server</span>
        </label>
      </fieldset>
      <Field label={how === 'add' ? 'E-mail' : 'E-mail (optional)'} hint={how === 'link' ? 'Empty makes an open link anyone holding it can use.' : undefined}>
        <input name="email" type="email" required={how === 'add'} autoComplete="off" />
      </Field>
      <Field label="Role">
        <select name="role" defaultValue="member">
          {ASSIGNABLE.map((r) => (
            <option key={r}>{r}</option>
          ))}
        </select>
      </Field>
      {noAccount ? (
        <div className="state error" role="alert">
          <p>
            <strong>No account on this server has that e-mail.</strong> Choose "Invitation link" and send them the link: they register when they open it.
          </p>
        </div>
      ) : (
        <ActionResult error={make.error} />
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={make.isPending}>
          {how === 'add' ? 'Add to organization' : 'Create invitation link'}
        </button>
        <Dialog.Close asChild>
          <button type="button">Cancel</button>
        </Dialog.Close>
      </div>
    </form>
  );
}

/** What the dialog made, with the link to copy. */
function Made({ outcome, again }: { outcome: Outcome; again: () => void }) {
  return (
    <>
      {outcome.kind === 'added' ? (
        <p role="status">{outcome.email} is now a member of this organization.</p>
      ) : (
        <div className="secret" role="status">
          <p>
            <strong>Copy this link now: it is shown only once.</strong>{' '}
            {outcome.email ? `Only ${outcome.email} can use it.` : 'Anyone holding it can join, until it expires or is revoked.'}
          </p>
          <code data-testid="invite-link">{outcome.url}</code> <CopyButton value={outcome.url} label="Copy link" />
        </div>
      )}
      <div className="actions">
        <button type="button" onClick={again}>
          Invite someone else
        </button>
        <Dialog.Close asChild>
          <button type="button" className="primary">
            Done
          </button>
        </Dialog.Close>
      </div>
    </>
  );
}

/** The Organization page's one Invite button: a dialog that makes an invitation link or adds an existing account. */
export function InviteButton() {
  const [open, setOpen] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setOutcome(null);
      }}
    >
      <Dialog.Trigger asChild>
        <button type="button" className="primary">
          Invite
        </button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" aria-describedby={undefined}>
          <Dialog.Title>Invite to the organization</Dialog.Title>
          {outcome ? <Made outcome={outcome} again={() => setOutcome(null)} /> : <InviteForm onDone={setOutcome} />}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
