import type { Collection, IndexSpec, Store } from '../store/port';
import type { TeamDoc, TeamMemberDoc } from './types';

export const TEAM_INDEXES: Record<string, IndexSpec[]> = {
  teams: [{ name: 'org_team', keys: { org_id: 1, team_id: 1 }, unique: true }],
  team_members: [
    { name: 'org_team_user', keys: { org_id: 1, team_id: 1, user_id: 1 }, unique: true },
    { name: 'org_user', keys: { org_id: 1, user_id: 1 } },
  ],
};

/** Typed store for teams and their members; every method takes the org first. */
export class TeamStore {
  private readonly teams: Collection<TeamDoc>;
  private readonly members: Collection<TeamMemberDoc>;
  constructor(store: Store) {
    this.teams = store.collection<TeamDoc>('teams');
    this.members = store.collection<TeamMemberDoc>('team_members');
  }

  list(orgId: string): Promise<TeamDoc[]> {
    return this.teams.find({ org_id: orgId }, { sort: { created_at: 1, team_id: 1 } });
  }

  get(orgId: string, teamId: string): Promise<TeamDoc | null> {
    return this.teams.findOne({ org_id: orgId, team_id: teamId });
  }

  /** Whether a team id is taken in the org. */
  async exists(orgId: string, teamId: string): Promise<boolean> {
    return (await this.teams.count({ org_id: orgId, team_id: teamId })) > 0;
  }

  async insert(doc: TeamDoc): Promise<TeamDoc> {
    return this.teams.insertOne(doc);
  }

  update(orgId: string, teamId: string, changes: Partial<TeamDoc>): Promise<TeamDoc | null> {
    return this.teams.findOneAndUpdate({ org_id: orgId, team_id: teamId }, { $set: changes }, { returnDocument: 'after' });
  }

  /** Deletes the team and its memberships (org memberships untouched). */
  async remove(orgId: string, teamId: string): Promise<boolean> {
    await this.members.deleteMany({ org_id: orgId, team_id: teamId });
    return (await this.teams.deleteOne({ org_id: orgId, team_id: teamId })) > 0;
  }

  listMembers(orgId: string, teamId: string): Promise<TeamMemberDoc[]> {
    return this.members.find({ org_id: orgId, team_id: teamId }, { sort: { added_at: 1, user_id: 1 } });
  }

  /** Team memberships of users in the org (for the member list's `teams`). */
  membershipsOf(orgId: string): Promise<TeamMemberDoc[]> {
    return this.members.find({ org_id: orgId });
  }

  async addMember(doc: TeamMemberDoc): Promise<TeamMemberDoc> {
    return this.members.insertOne(doc);
  }

  async removeMember(orgId: string, teamId: string, userId: string): Promise<boolean> {
    return (await this.members.deleteOne({ org_id: orgId, team_id: teamId, user_id: userId })) > 0;
  }

  /** Removes a user from every team of the org (membership removal). */
  async removeUserEverywhere(orgId: string, userId: string): Promise<void> {
    await this.members.deleteMany({ org_id: orgId, user_id: userId });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly teams: TeamStore;
  }
}
