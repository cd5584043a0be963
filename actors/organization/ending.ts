// What follows when an organization ends, by bankruptcy or dissolution (core rules 6 and
// 7): its adventurers become available, the quests it requested are withdrawn with
// every sponsor refunded (those it had accepted open again), and its own pledges to
// other quests come back to it. Dissolution also ends its alliances. The organization has already
// recorded its end and cancelled its projects; this runs after, from outside any actor,
// so it may ask adventurers and quests alike.
import type { Entities } from '../ports/entities';
import type { ReadModel } from '../ports/store';

export async function followEnding(entities: Entities, read: ReadModel, organizationId: number, day: number, how: 'bankruptcy' | 'dissolution'): Promise<void> {
  const reason = how === 'bankruptcy' ? 'its organization went bankrupt' : 'its organization was dissolved';
  for (const id of await read.ids('employeesOf', organizationId)) {
    await entities.ask('adventurer', id, { type: 'freed', organization_id: organizationId, day, reason });
  }
  const quests = (await read.list<{ id: number; requester_id: number; accepted_organization_id: number | null }>('liveQuests'))
    .filter((q) => q.requester_id === organizationId || q.accepted_organization_id === organizationId);
  for (const q of quests) await entities.ask('quest', q.id, { type: 'organization-ended', organization_id: organizationId, day });
  // Its pledges to other organizations' quests come back to it (core rule 6).
  const pledged = (await read.list<{ id: number; sponsors: Array<{ organization_id: number }> }>('liveQuests'))
    .filter((q) => q.sponsors.some((s) => s.organization_id === organizationId));
  for (const q of pledged) await entities.ask('quest', q.id, { type: 'sponsor-ended', organization_id: organizationId, day });
  // Dissolution also ends its alliances (core rule 7); a bankrupt member's partner may end them itself.
  if (how !== 'dissolution') return;
  const alliances = (await read.list<{ id: number; proposer_id: number; counterparty_id: number }>('liveAlliances'))
    .filter((a) => a.proposer_id === organizationId || a.counterparty_id === organizationId);
  for (const a of alliances) await entities.ask('alliance', a.id, { type: 'member-ended', organization_id: organizationId, day });
}
