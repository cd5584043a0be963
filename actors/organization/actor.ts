// The organization actor: a thin shell around rules.ts.
import { withArticle } from '../words';
import { own, setOwn } from '../own';
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityKind } from '../entity';
import { ledger } from '../ledger';
import { RANK } from '../order';
import type { MessageSpec, Organization, OrganizationCommand, OrganizationEvent, OrganizationState, Project } from './messages';
import {
  decideSendMessage, decideTransfer, decideAddPartyMember, decideDispatchParty, decideEmploy, decideFormParty, decideQuestSettled, decideReserveGold,
  decideCancelProject, decideDay, decideDissolve, decideFound, decideSettleTrade, decideStartProject, decideTravel,
  decideUpdate, decideWorkers, evolve, maintenanceCost, checkControl, decideEndingFollowed, decideRecordTrust, decideRetireController,
} from './rules';
import { intentEnded, intentRow } from '../intents';
import { trustPairId, trustRowId } from '../relationship/rules';

export function organizationView(o: Organization) {
  return {
    id: o.id, name: o.name, kind: o.kind, location_id: o.location_id, description: o.description,
    goals: o.goals, motto: o.motto, treasury: o.treasury, reputation: o.reputation, status: o.status,
    agent_id: o.agent_id, travel: o.travel, founded_day: o.founded_day, ended_day: o.ended_day,
    holdings: o.holdings, workers: o.workers, employee_count: o.employees.length, employees: [...o.employees],
    trust: o.trust,
    daily_maintenance: maintenanceCost(o),
  };
}

export type OrganizationView = ReturnType<typeof organizationView>;

export const projectView = (p: Project) => ({
  id: p.id, owner_id: p.owner_id, title: p.title, kind: p.kind, description: p.description, location_id: p.location_id,
  budget: p.budget, duration_days: p.duration_days, output_resource: p.output_resource, output_quantity: p.output_quantity,
  establishment_kind: p.establishment_kind, status: p.status, started_day: p.started_day, ended_day: p.ended_day,
  progress_days: p.progress_days, progress: Math.min(1, p.progress_days / p.duration_days), spent: p.spent, refund: p.refund,
  production_plan: p.production !== null,
  workers_required: p.production?.workers_required ?? null,
});

export const productionView = (p: Project) => ({
  id: p.id, project_id: p.id, owner_id: p.owner_id, title: p.title, location_id: p.location_id, resource: p.output_resource,
  // Whether its last day was staffed: null before its first day, which nothing has decided yet.
  quantity_per_day: p.output_quantity, workers_required: p.production!.workers_required, staffed: p.progress_days === 0 ? null : p.production!.staffed,
  produced_total: p.production!.produced_total, status: p.status, started_day: p.started_day, ends_day: p.started_day + p.duration_days,
});

/** A quest as the history names it: by its title, or by its id in events recorded before the title was carried. */
const questCalled = (e: { quest_id: number; quest_title?: string }) => (e.quest_title !== undefined ? `"${e.quest_title}"` : `quest ${e.quest_id}`);

function chronicle(e: OrganizationEvent, after: OrganizationState, before: OrganizationState): HistoryEntry[] {
  if (!after) return [];
  const base = { day: e.day, agent_id: after.agent_id, organization_ids: [after.id] };
  const projectTitle = (id: number) => after.projects.find((p) => p.id === id)?.title ?? `project ${id}`;
  switch (e.type) {
    case 'founded':
      return [{ ...base, category: 'organization', summary: `${after.name}, ${withArticle(after.kind)}, was founded at ${after.location_id} with ${e.treasury} gold`, data: { treasury: e.treasury, ledger: ledger({ organization_id: after.id, flow: 'founding_grant', gold: e.treasury }) } }];
    case 'updated':
      return [{ ...base, category: 'organization', summary: `${after.name} revised its ${Object.keys(e.changes).join(', ') || 'nothing'}`, data: { changes: e.changes } }];
    case 'establishment-income':
      return [{
        ...base, category: 'establishment', summary: `${after.name}'s establishments earned ${e.gold} gold`,
        data: { gold: e.gold, treasury: after.treasury, ledger: ledger({ organization_id: after.id, flow: 'establishment_income', gold: e.gold }) },
      }];
    case 'maintenance-paid':
      return [{
        ...base, category: 'maintenance',
        summary: e.unpaid === 0
          ? `${after.name} paid ${e.paid} gold upkeep`
          : `${after.name} could pay only ${e.paid} of ${e.cost} gold upkeep and lost ${e.reputation_lost} reputation`,
        data: { cost: e.cost, paid: e.paid, unpaid: e.unpaid, reputation_lost: e.reputation_lost, treasury: after.treasury, ledger: ledger({ organization_id: after.id, flow: 'upkeep', gold: -e.paid }) },
      }];
    case 'went-bankrupt':
      return [{ ...base, category: 'bankruptcy', summary: `${after.name} went bankrupt` }];
    case 'ending-followed':
      return []; // the adventurers, quests, contracts and alliances tell what followed
    case 'trust-recorded':
      return []; // bookkeeping of the read model
    case 'controller-retired':
      return []; // the agent's retirement tells it
    case 'dissolved':
      return [{ ...base, agent_id: e.agent_id, category: 'organization', summary: `${after.name} was dissolved by its founder` }];
    case 'travel-started':
      return [{ ...base, category: 'travel', summary: `${after.name} set out from ${before?.location_id} for ${e.destination_id}, arriving on day ${e.arrives_day}`, data: { from: before?.location_id, to: e.destination_id, arrives_day: e.arrives_day } }];
    case 'arrived':
      return [{ ...base, category: 'travel', summary: `${after.name} arrived at ${e.location_id}`, data: { location_id: e.location_id } }];
    case 'trade-settled': {
      const place = e.location_id;
      return [{
        ...base, agent_id: e.agent_id, category: 'trade',
        summary: `${after.name} ${e.side === 'buy' ? 'bought' : 'sold'} ${e.quantity} ${e.resource} at ${place} for ${e.gold} gold`,
        data: {
          location_id: place, resource: e.resource, side: e.side, quantity: e.quantity, total: e.gold, ...(e.price_after !== undefined ? { price_after: e.price_after } : {}),
          ledger: ledger({ organization_id: after.id, flow: 'market', gold: e.side === 'buy' ? -e.gold : e.gold, goods: { [e.resource]: e.side === 'buy' ? e.quantity : -e.quantity } }),
        },
      }];
    }
    case 'workers-hired':
      return [{ ...base, category: 'workers', summary: `${after.name} hired ${e.quantity} workers for ${e.cost} gold`, data: { quantity: e.quantity, cost: e.cost, workers: after.workers, ledger: ledger({ organization_id: after.id, flow: 'workers', gold: -e.cost }) } }];
    case 'workers-released':
      return [{ ...base, category: 'workers', summary: `${after.name} released ${e.quantity} workers`, data: { quantity: e.quantity, workers: after.workers } }];
    case 'workers-lost':
      return [{ ...base, category: 'workers', summary: `${after.name} lost ${e.quantity} workers in the wilds of ${e.location_id}`, data: { quantity: e.quantity, workers: after.workers } }];
    case 'project-started': {
      const plan = e.workers_required !== null;
      return [{ ...base, category: 'project', summary: plan
        ? `${after.name} began a production plan "${e.project.title}": ${e.project.output_quantity} ${e.project.output_resource} a day with ${e.workers_required} workers`
        : `${after.name} began the project "${e.project.title}" at ${e.project.location_id} with a budget of ${e.project.budget} gold`,
      data: { project_id: e.project.id, budget: e.project.budget, duration_days: e.project.duration_days, ledger: ledger({ organization_id: after.id, flow: 'project_budget', gold: -e.project.budget }) } }];
    }
    case 'project-cancelled':
      return [{ ...base, category: 'project', summary: `"${projectTitle(e.project_id)}" of ${after.name} was cancelled (${e.reason})${e.refund ? `; ${e.refund} gold recovered` : ''}`, data: { project_id: e.project_id, refund: e.refund, ledger: ledger({ organization_id: after.id, flow: 'project_refund', gold: e.refund }) } }];
    case 'projects-worked': {
      const made = e.work.filter((w) => w.produced > 0);
      const idle = e.work.filter((w) => !w.staffed);
      if (!made.length && !idle.length) return [];
      const resourceOf = (id: number) => after.projects.find((p) => p.id === id)?.output_resource ?? '';
      const parts = made.map((w) => `${w.produced} ${resourceOf(w.project_id)}`);
      const goods: Record<string, number> = {};
      for (const w of made) setOwn(goods, resourceOf(w.project_id), (own(goods, resourceOf(w.project_id)) ?? 0) + w.produced);
      return [{ ...base, category: 'production', summary: `${after.name} ${parts.length ? `produced ${parts.join(', ')}` : 'produced nothing'}${idle.length ? `; ${idle.length} plan(s) idle for want of workers` : ''}`, data: { work: e.work, ledger: ledger({ organization_id: after.id, flow: 'production', goods }) } }];
    }
    case 'message-sent': {
      const m = e.message;
      const what = m.kind === 'rumor' ? 'spread a rumor' : m.recipient_id === null ? 'made a public announcement' : `sent a private message to ${m.recipient_name ?? `organization ${m.recipient_id}`}`;
      return [{ ...base, organization_ids: m.recipient_id === null ? [after.id] : [after.id, m.recipient_id], category: 'message', summary: `${after.name} ${what} (${e.cost} gold)`, data: { message_id: m.id, kind: m.kind, public: m.recipient_id === null, ledger: ledger({ organization_id: after.id, flow: 'message', gold: -e.cost }) } }];
    }
    case 'transferred': {
      // Trust alone (an alliance, a rejected contract) is not a movement; the contract says what was agreed.
      const goods = Object.entries(e.holdings).filter(([, q]) => q !== 0);
      if (e.gold === 0 && goods.length === 0) return [];
      const moved = [
        ...(e.gold ? [`${e.gold > 0 ? 'received' : 'paid'} ${Math.abs(e.gold)} gold`] : []),
        ...goods.map(([r, q]) => `${q > 0 ? 'received' : 'handed over'} ${Math.abs(q)} ${r}`),
      ];
      return [{
        ...base, agent_id: null, category: 'contract', summary: `${after.name} ${moved.join(' and ')} (${e.reason})`,
        data: { reason: e.reason, ledger: ledger({ organization_id: after.id, flow: 'contract', gold: e.gold, goods: Object.fromEntries(goods) }) },
      }];
    }
    case 'estate-forfeited': {
      const goods = Object.entries(e.holdings).map(([r, q]) => `${q} ${r}`);
      const what = [...(e.gold ? [`${e.gold} gold`] : []), ...goods];
      return [{
        ...base, category: 'organization',
        summary: `${what.length ? `The estate of ${after.name} (${what.join(', ')}) passed to the world` : `Nothing was left of ${after.name}`}${e.workers ? `; its ${e.workers} workers went home` : ''} (${e.reason})`,
        data: { gold: e.gold, holdings: e.holdings, workers: e.workers, ledger: ledger({ organization_id: after.id, flow: 'estate_forfeited', gold: -e.gold, goods: Object.fromEntries(Object.entries(e.holdings).map(([r, q]) => [r, -q])) }) },
      }];
    }
    case 'gold-reserved':
      return [{
        ...base, agent_id: e.agent_id, category: 'quest',
        summary: `${after.name} set aside ${e.amount} gold for ${e.purpose === 'reward' ? 'the reward of' : 'its pledge to'} ${questCalled(e)}`,
        data: { quest_id: e.quest_id, purpose: e.purpose, ledger: ledger({ organization_id: after.id, flow: 'quest_escrow', gold: -e.amount }) },
      }];
    case 'quest-settled': {
      if (e.gold === 0) return []; // reputation, trust and the party home: the quest's record tells these
      const flows = e.flows ?? [{ flow: 'quest_escrow' as const, gold: e.gold }];
      return [{
        ...base, agent_id: null, category: 'quest',
        summary: `${after.name} received ${e.gold} gold from ${questCalled(e)} (${e.reason})`,
        data: { quest_id: e.quest_id, reason: e.reason, ledger: ledger(...flows.map((f) => ({ organization_id: after.id, flow: f.flow, gold: f.gold }))) },
      }];
    }
    case 'adventurer-employed':
      // The fee is the organization's to tell (its ledger); the rest of a hiring is the adventurer's.
      return e.fee ? [{
        ...base, category: 'adventurer', summary: `${after.name} paid ${e.fee} gold to hire ${e.adventurer_name ?? `adventurer ${e.adventurer_id}`}`,
        data: { adventurer_id: e.adventurer_id, ledger: ledger({ organization_id: after.id, flow: 'hiring', gold: -e.fee }) },
      }] : [];
    case 'adventurer-left':
    case 'party-member-added':
      return []; // the adventurer's record tells these
    case 'party-formed':
      return [{ ...base, category: 'party', summary: `${after.name} formed the party "${e.name}"`, data: { party_id: e.party_id } }];
    case 'party-dispatched': {
      const party = after.parties.find((p) => p.id === e.party_id);
      return [{ ...base, category: 'party', summary: `${after.name} dispatched ${party ? `the party "${party.name}"` : `party ${e.party_id}`} on ${questCalled(e)}`, data: { party_id: e.party_id, quest_id: e.quest_id, members: party?.members ?? [] } }];
    }
    case 'project-completed':
      return [{ ...base, category: 'project', summary: `${after.name} completed "${projectTitle(e.project_id)}"${e.establishment ? `, opening the ${e.establishment.kind} "${e.establishment.name}" at ${e.establishment.location_id}` : ''}${e.output ? `, yielding ${e.output.quantity} ${e.output.resource}` : ''}`, data: { project_id: e.project_id, output: e.output, establishment: e.establishment, ledger: ledger(e.output && { organization_id: after.id, flow: 'production', goods: { [e.output.resource]: e.output.quantity } }) } }];
  }
}

function project(o: OrganizationState, before?: OrganizationState): ProjectionRow[] {
  if (!o) return [];
  // Projects, parties and establishments the events left as they were (the same objects;
  // a party also at the same place, which its row carries) are on record already: an
  // organization's ended projects and disbanded parties are not written again each day.
  const unchanged = new Set<unknown>(before ? [...before.projects, ...before.establishments, ...(before.location_id === o.location_id ? before.parties : [])] : []);
  const rows: ProjectionRow[] = [{
    kind: 'organization', id: o.id, status: o.status, location_id: o.location_id,
    organization_id: o.id, agent_id: o.agent_id, doc: organizationView(o),
  }];
  for (const p of o.projects) {
    if (unchanged.has(p)) continue;
    rows.push({ kind: 'project', id: p.id, status: p.status, location_id: p.location_id, organization_id: o.id, doc: projectView(p) });
    if (p.production) rows.push({ kind: 'production', id: p.id, status: p.status, location_id: p.location_id, organization_id: o.id, doc: productionView(p) });
  }
  for (const p of o.parties) {
    if (unchanged.has(p)) continue;
    // A disbanded party (its organization ended) leaves the listings.
    rows.push(p.status === 'disbanded'
      ? { kind: 'party', id: p.id, deleted: true, doc: {} }
      : { kind: 'party', id: p.id, status: p.status, location_id: o.location_id, organization_id: o.id, doc: { ...p, members: [...p.members] } });
  }
  for (const e of o.establishments) {
    if (unchanged.has(e)) continue;
    rows.push({ kind: 'establishment', id: e.id, status: e.kind, location_id: e.location_id, organization_id: o.id, doc: { ...e } });
  }
  // evolve copies the trust it changes: the same object is on record already.
  if (!before || before.trust !== o.trust) rows.push(...trustRows(o));
  return rows;
}

/**
 * Its trust toward each other organization, a row each (`trust`, keyed by trustRowId), as
 * GET /api/relationships lists them: so that listing reads the pairs, not every organization.
 */
export function trustRows(o: Organization): ProjectionRow[] {
  return Object.entries(o.trust).map(([key, trust]) => {
    const other = Number(key);
    return {
      kind: 'trust', id: trustRowId(o.id, other), organization_id: o.id,
      doc: { id: trustPairId(o.id, other), organization_id: o.id, other_organization_id: other, organization_ids: [o.id, other], trust },
    };
  });
}

export const messageView = (m: MessageSpec, sender: Pick<Organization, 'id' | 'name'>, sentDay: number, cost: number) => ({
  id: m.id, sender_id: sender.id, sender_name: sender.name, recipient_id: m.recipient_id, body: m.body, kind: m.kind,
  public: m.recipient_id === null, verified: m.kind !== 'rumor', sent_day: sentDay, deliver_day: m.deliver_day, cost,
  sender_location_id: m.sender_location_id, recipient_location_id: m.recipient_location_id,
});

export const organizationKind: EntityKind<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  kind: 'organization',
  rank: RANK.organization,
  commands: {
    found: true, update: true, dissolve: true, status: true, 'day-began': true, travel: true,
    'settle-trade': true, 'hire-workers': true, 'release-workers': true, 'start-project': true,
    'cancel-project': true, employ: true, unemploy: true, 'send-message': true, transfer: true,
    'form-party': true, 'add-party-member': true, 'dispatch-party': true, 'reserve-gold': true,
    'quest-standing': true, 'quest-settled': true, control: true, 'check-transfer': true, 'ending-followed': true,
    'retire-controller': true, 'record-trust': true,
  },
  initialState: null,
  evolve,
  project,
  chronicle,
  // A message row keeps its recipient organization in the agent_id column, so an inbox is one indexed read.
  // Its end is an intent until what follows it is done (actors/intents.ts).
  eventRows: (e, after) => {
    if (!after) return [];
    switch (e.type) {
      case 'message-sent':
        return [{ kind: 'message', id: e.message.id, status: e.message.recipient_id === null ? 'public' : 'private', organization_id: after.id, agent_id: e.message.recipient_id, doc: messageView(e.message, after, e.day, e.cost) }];
      case 'went-bankrupt':
      case 'dissolved':
        return [intentRow({ kind: 'organization', id: after.id, intent: 'ending', day: e.day, how: e.type === 'dissolved' ? 'dissolution' : 'bankruptcy' })];
      case 'ending-followed':
        return [intentEnded('organization', after.id)];
      case 'trust-recorded':
        return trustRows(after);
      default:
        return [];
    }
  },
  view: (s) => (s ? organizationView(s) : null),
  handle(state, c) {
    switch (c.type) {
      case 'found': return decideFound(state, c);
      case 'update': return decideUpdate(state, c);
      case 'dissolve': return decideDissolve(state, c.agent_id, c.day);
      case 'ending-followed': return decideEndingFollowed(state, c.day);
      case 'record-trust': return decideRecordTrust(state, c.day);
      case 'day-began': return decideDay(state, c);
      case 'travel': return decideTravel(state, c);
      case 'settle-trade': return decideSettleTrade(state, c);
      case 'hire-workers':
      case 'release-workers': return decideWorkers(state, c);
      case 'start-project': {
        const d = decideStartProject(state, c.agent_id, c.day, c.project, c.unit_price);
        return 'refusal' in d ? d : { events: d.events, reply: (s: OrganizationState) => projectView(s!.projects.find((p) => p.id === c.project.id)!) };
      }
      case 'cancel-project': {
        const d = decideCancelProject(state, c.agent_id, c.day, c.project_id);
        return 'refusal' in d ? d : { events: d.events, reply: (s: OrganizationState) => projectView(s!.projects.find((p) => p.id === c.project_id)!) };
      }
      case 'employ':
      case 'unemploy': return decideEmploy(state, c);
      case 'send-message': {
        const d = decideSendMessage(state, c);
        // The answer is the message as its row shows it (the same view of the same event), so its sender need not read the row back.
        if ('refusal' in d) return d;
        const sent = d.events[0] as Extract<OrganizationEvent, { type: 'message-sent' }>;
        return { events: d.events, reply: (s: OrganizationState) => messageView(sent.message, s!, sent.day, sent.cost) };
      }
      case 'transfer':
      case 'check-transfer': return decideTransfer(state, c);
      case 'form-party': return decideFormParty(state, c);
      case 'add-party-member': return decideAddPartyMember(state, c);
      case 'dispatch-party': return decideDispatchParty(state, c);
      case 'reserve-gold': return decideReserveGold(state, c);
      case 'quest-settled': return decideQuestSettled(state, c);
      case 'control': {
        const refused = checkControl(state, c.agent_id);
        return refused ?? { events: [] };
      }
      case 'quest-standing': {
        const refused = checkControl(state, c.agent_id);
        if (refused) return refused;
        return { events: [], reply: (s: OrganizationState) => ({ reputation: s!.reputation, trust: s!.trust[String(c.requester_id)] ?? 0, location_id: s!.location_id, travel: s!.travel }) };
      }
      case 'status': return state ? { events: [] } : { refusal: { status: 404, detail: 'organization not found' } };
      case 'retire-controller': return decideRetireController(state, c.agent_id, c.day);
    }
  },
};
