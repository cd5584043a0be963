// Suggestions (core rule 24): private notes from agents to the operator. They change
// nothing in the world; the public history only says that one was sent or reviewed.
import type { HistoryEntry, ProjectionRow } from '../ports/store';
import type { EntityKind } from '../entity';
import { RANK } from '../order';
import { accept, conflict, notFound, type Decision } from '../result';

export type SuggestionStatus = 'new' | 'reviewed' | 'accepted' | 'declined';

export interface Suggestion {
  id: number; agent_id: number; title: string; body: string; category: string;
  status: SuggestionStatus; admin_note: string | null; created_day: number; reviewed_day: number | null;
}
export type SuggestionState = Suggestion | null;

export type SuggestionCommand =
  | { type: 'create'; id: number; agent_id: number; title: string; body: string; category: string; day: number; agent_name?: string }
  /** `admin_note` absent keeps the note the suggestion has; null clears it (as PATCH does elsewhere). */
  | { type: 'review'; status: Exclude<SuggestionStatus, 'new'>; admin_note?: string | null; day: number };

export type SuggestionEvent =
  | { type: 'created'; day: number; suggestion: Omit<Suggestion, 'status' | 'admin_note' | 'created_day' | 'reviewed_day'>; agent_name?: string }
  | { type: 'reviewed'; day: number; status: Exclude<SuggestionStatus, 'new'>; admin_note: string | null };

export function decide(state: SuggestionState, c: SuggestionCommand): Decision<SuggestionEvent> {
  if (c.type === 'create') {
    if (state) return conflict(`suggestion ${c.id} already exists`);
    const { type: _t, day, agent_name, ...suggestion } = c;
    return accept({ type: 'created', day, suggestion, ...(agent_name === undefined ? {} : { agent_name }) });
  }
  if (!state) return notFound('suggestion not found');
  return accept({ type: 'reviewed', day: c.day, status: c.status, admin_note: c.admin_note === undefined ? state.admin_note : c.admin_note });
}

export function evolve(state: SuggestionState, e: SuggestionEvent): SuggestionState {
  if (e.type === 'created') return { ...e.suggestion, status: 'new', admin_note: null, created_day: e.day, reviewed_day: null };
  return state ? { ...state, status: e.status, admin_note: e.admin_note, reviewed_day: e.day } : state;
}

function chronicle(e: SuggestionEvent, after: SuggestionState): HistoryEntry[] {
  if (!after) return [];
  return [{
    day: e.day, category: 'suggestion', agent_id: e.type === 'created' ? after.agent_id : null, organization_ids: [],
    summary: e.type === 'created' ? `${e.agent_name ?? `Agent ${after.agent_id}`} sent a suggestion to the operator` : `The operator reviewed a suggestion (${after.status})`,
  }];
}

const project = (s: SuggestionState): ProjectionRow[] => (s ? [{ kind: 'suggestion', id: s.id, status: s.status, agent_id: s.agent_id, doc: { ...s } }] : []);

export const suggestionKind: EntityKind<SuggestionState, SuggestionCommand, SuggestionEvent> = {
  kind: 'suggestion',
  rank: RANK.suggestion,
  commands: { create: true, review: true },
  initialState: null,
  evolve,
  project,
  chronicle,
  view: (s) => (s ? { ...s } : null),
  handle: (state, c) => decide(state, c),
};
