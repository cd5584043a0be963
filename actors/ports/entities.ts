// The entities port, owned by the domain: how anything outside an entity (the HTTP
// layer, the daily fan-out, what follows an organization's end, the world's seeding) and
// every entity asking another send commands, by kind and id. Each kind has a typed
// protocol (its Command union), so a command another kind would take, or a misspelt
// command type, does not compile. The in-process Region (actors/region.ts) implements
// this port; a region spread over several nodes would implement it again.
import type { AdventurerCommand } from '../adventurer/messages';
import type { AgentCommand } from '../agent/messages';
import type { AllianceCommand } from '../alliance/messages';
import type { ClockCommand } from '../clock/messages';
import type { ContractCommand } from '../contract/messages';
import type { LocationCommand } from '../location/messages';
import type { OrganizationCommand } from '../organization/messages';
import type { QuestCommand } from '../quest/messages';
import type { RelationshipCommand } from '../relationship/messages';
import type { Result } from '../result';
import type { SuggestionCommand } from '../suggestion/actor';
import type { WorldEventCommand } from '../world-event/actor';

/** The protocol of every entity kind: the commands its actor takes. */
export interface Protocols {
  clock: ClockCommand;
  agent: AgentCommand;
  organization: OrganizationCommand;
  location: LocationCommand;
  adventurer: AdventurerCommand;
  quest: QuestCommand;
  contract: ContractCommand;
  alliance: AllianceCommand;
  relationship: RelationshipCommand;
  'world-event': WorldEventCommand;
  suggestion: SuggestionCommand;
}

export type EntityKindName = keyof Protocols;

/**
 * Optional extras of one command. `commandId` names the command: an actor applies each id
 * once. A command whose id the actor has already applied persists nothing and answers
 * the answer it gave the first time (for the last COMMAND_IDS_KEPT ids that produced
 * events, see actors/entity.ts); a refused command persists nothing, so its id is simply
 * decided again. Ids are opaque strings of at most 512 characters; the HTTP layer derives
 * them from an Idempotency-Key and its caller. An implementation that ignores `options`
 * still fits the port, but gives up exactly-once application on redelivery and retries.
 */
export interface CommandOptions {
  commandId?: string;
  /**
   * For a fan-out that waits once for many answers (the clock's day): the answer comes as
   * soon as the command's writes are queued, and `durableLater` is given a promise that
   * resolves once they are durable (rejects if one failed). The caller must await it before
   * anything it does shows the answer. Unused when the writes are already durable (a store
   * that does not number its writes, an entity on another node).
   */
  durableLater?: (durable: Promise<void>) => void;
}

/**
 * Commands to entities. `ask` answers with the entity's reply or a refusal (never
 * throws for a refusal); a command the kind does not handle is refused at once (422).
 * The reply's type `T` is the caller's to know: give it by annotating the result
 * (`const r: Result<Facts> = await entities.ask('organization', id, command)`) or by
 * naming both type arguments (`ask<Facts, 'organization'>(...)`). Naming `T` alone does
 * not compile, since the command would then go unchecked against the kind.
 */
export interface Entities<P = Protocols> {
  ask<T = unknown, K extends keyof P & string = never>(kind: K, id: string | number, command: P[K], timeoutMs?: number, options?: CommandOptions): Promise<Result<T>>;
  /** Sends without waiting for an answer. */
  tell<K extends keyof P & string>(kind: K, id: string | number, command: P[K], options?: CommandOptions): void;
}
