// What follows when an organization ends, by bankruptcy or dissolution (core rules 6 and
// 7): its adventurers become available, the quests it requested are withdrawn with
// every sponsor refunded (those it had accepted open again), and its own pledges to
// other quests come back to it, and its proposed or accepted contracts close unfulfilled
// (rejected, nothing moves). Dissolution also ends its alliances. The organization has already
// recorded its end (its intent: a pending `intent` row, see actors/intents.ts) and
// cancelled its projects; this runs after, from outside any actor, so it may ask
// adventurers, quests, contracts and alliances alike. Every step is idempotent (an
// adventurer already free, a quest no longer live, a pledge already returned, a contract
// already closed, an alliance already ended changes nothing), so the follow-up is run again until it is whole; then the organization
// records that it was followed up.
import type { EntityIO } from '../entity';
import type { Entities } from '../ports/entities';
import type { ReadModel } from '../ports/store';
import type { Result } from '../result';
import { isLive } from '../contract/rules';

/** How an organization ended, and on which day. */
export interface Ended { how: 'bankruptcy' | 'dissolution'; day: number }

/**
 * Whether an organization has ended: how and when, or null while it stands. Read once the
 * asking actor's own writes are durable (its read model waits for them, EntityIO.read). An
 * action that has just recorded a link with the organization (a proposal, a hiring, a
 * quest's posting, acceptance or pledge) reads this to learn whether the follow-up of an end
 * may have missed the link: the organization's end is durable before the follow-up lists its
 * links, and the link is durable before this read, so either the listing finds the link or
 * this read finds the end, whatever the store and however its commits interleave.
 */
export async function endedNow(io: EntityIO, organizationId: number): Promise<Ended | null> {
  const row = await io.read.row<{ status: string; ended_day: number | null }>('organization', organizationId);
  if (!row || (row.status !== 'bankrupt' && row.status !== 'dissolved') || row.ended_day === null) return null;
  return { how: row.status === 'bankrupt' ? 'bankruptcy' : 'dissolution', day: row.ended_day };
}

/** The first of these organizations that has ended (endedNow), of the ends that count, or null. */
export async function firstEnded(io: EntityIO, ids: number[], counts: (how: Ended['how']) => boolean = () => true): Promise<(Ended & { id: number }) | null> {
  for (const id of ids) {
    const ended = await endedNow(io, id);
    if (ended && counts(ended.how)) return { ...ended, id };
  }
  return null;
}

/** What the follow-up of an end tells an adventurer it frees. */
export const endReason = (how: Ended['how']) => (how === 'bankruptcy' ? 'its organization went bankrupt' : 'its organization was dissolved');

/**
 * Runs every step of the follow-up, stopping at the first the world could not finish.
 * Answers null when all are done, or what went wrong.
 */
export async function followEnding(entities: Entities, read: ReadModel, organizationId: number, day: number, how: 'bankruptcy' | 'dissolution'): Promise<string | null> {
  const reason = endReason(how);
  const failed = (what: string, r: Result<unknown>) => (r.ok ? null : `${what}: ${r.refusal.status} ${r.refusal.detail}`);
  for (const id of await read.ids('employeesOf', organizationId)) {
    const problem = failed(`adventurer ${id}`, await entities.ask('adventurer', id, { type: 'freed', organization_id: organizationId, day, reason }));
    if (problem) return problem;
  }
  const quests = (await read.list<{ id: number; requester_id: number; accepted_organization_id: number | null }>('liveQuests'))
    .filter((q) => q.requester_id === organizationId || q.accepted_organization_id === organizationId);
  for (const q of quests) {
    const problem = failed(`quest ${q.id}`, await entities.ask('quest', q.id, { type: 'organization-ended', organization_id: organizationId, day }));
    if (problem) return problem;
  }
  // Its pledges to other organizations' quests come back to it (core rule 6).
  const pledged = (await read.list<{ id: number; sponsors: Array<{ organization_id: number }> }>('liveQuests'))
    .filter((q) => q.sponsors.some((s) => s.organization_id === organizationId));
  for (const q of pledged) {
    const problem = failed(`quest ${q.id}`, await entities.ask('quest', q.id, { type: 'sponsor-ended', organization_id: organizationId, day }));
    if (problem) return problem;
  }
  // Its proposed and accepted contracts close with it, by bankruptcy or dissolution alike:
  // they stand as rejected, with the reason, and nothing moves (core rules 6, 7 and 21).
  // A contract row keeps its proposer in organization_id and its counterparty in agent_id.
  const live = (d: { id: number; status: string }) => ({ id: d.id, status: d.status });
  const contracts = [...await read.list('contractsProposedBy', organizationId, live), ...await read.list('contractsOfferedTo', organizationId, live)]
    .filter(isLive)
    .sort((x, y) => x.id - y.id);
  for (const c of contracts) {
    const problem = failed(`contract ${c.id}`, await entities.ask('contract', c.id, { type: 'party-ended', organization_id: organizationId, how, day }));
    if (problem) return problem;
  }
  // Dissolution also ends its alliances (core rule 7); a bankrupt member's partner may end them itself.
  if (how === 'dissolution') {
    const problem = await endAlliances(entities, read, organizationId, day, failed);
    if (problem) return problem;
  }
  // Last, its agent controls it no more: the agent's current organization is none until it founds another.
  const owner = (await read.row<{ agent_id: number | null }>('organization', organizationId))?.agent_id;
  if (typeof owner === 'number' && owner > 0) return failed(`agent ${owner}`, await entities.ask('agent', owner, { type: 'own-organization-ended', organization_id: organizationId, day }));
  return null;
}

async function endAlliances(entities: Entities, read: ReadModel, organizationId: number, day: number, failed: (what: string, r: Result<unknown>) => string | null): Promise<string | null> {
  const alliances = (await read.list<{ id: number; proposer_id: number; counterparty_id: number }>('liveAlliances'))
    .filter((a) => a.proposer_id === organizationId || a.counterparty_id === organizationId);
  for (const a of alliances) {
    const problem = failed(`alliance ${a.id}`, await entities.ask('alliance', a.id, { type: 'member-ended', organization_id: organizationId, day }));
    if (problem) return problem;
  }
  return null;
}

/**
 * The follow-up of an organization's end, then the organization's record that it is done
 * (which ends its intent). Answers null once done, or what is left for the next try.
 */
export async function completeEnding(entities: Entities, read: ReadModel, organizationId: number, day: number, how: 'bankruptcy' | 'dissolution'): Promise<string | null> {
  const problem = await followEnding(entities, read, organizationId, day, how);
  if (problem) return problem;
  const r = await entities.ask('organization', organizationId, { type: 'ending-followed', day });
  return r.ok ? null : `organization ${organizationId}: ${r.refusal.status} ${r.refusal.detail}`;
}
