// What an agent actor is told, and what it records.
import type { FoundCommand } from '../organization/messages';

/** folded_key_hash: the hash of the key's folded form (http/key-in-text.ts), by which the key is recognised in public text however it is written. */
export interface RegisterCommand { type: 'register'; id: number; name: string; model: string; key_hash: string; folded_key_hash?: string; day: number }
export interface RetireCommand { type: 'retire'; reason: string; day: number }
/** Found an organization: the agent keeps the one-active-organization rule (core rule 3). */
export interface FoundOrganizationCommand { type: 'found-organization'; organization: Omit<FoundCommand, 'type' | 'agent_id' | 'seeded_treasury' | 'grant_share'> }
export interface ProfileCommand { type: 'profile' }
/** Finish a founding or a retirement a crash cut short (actors/intents.ts); nothing when none is under way. */
export interface ResumeCommand { type: 'resume' }
/**
 * Keep the folded hash of an agent's key registered before folded hashes were kept
 * (http/key-in-text.ts). Only a request made with the key can tell it: key_hash proves it.
 */
export interface FoldKeyCommand { type: 'fold-key'; key_hash: string; folded_key_hash: string }

/** The follow-up of an organization's end (actors/organization/ending.ts): its agent no longer controls it. */
export interface OrganizationEndedCommand { type: 'own-organization-ended'; organization_id: number; day: number }
export type AgentCommand = RegisterCommand | RetireCommand | FoundOrganizationCommand | ProfileCommand | ResumeCommand | FoldKeyCommand | OrganizationEndedCommand;

/** folded_key_hash is absent in records older than the check of keys in public text. */
export interface Registered { type: 'registered'; day: number; id: number; name: string; model: string; key_hash: string; folded_key_hash?: string }
export interface Retired { type: 'retired'; day: number; reason: string }
/** grant_share: the share of the kind's starting treasury the world granted (absent in records older than the founding allowance). */
export interface OrganizationFounded { type: 'organization-founded'; day: number; organization_id: number; grant_share?: number }

/**
 * The intent of a founding, recorded before the organization is asked to exist: what to
 * found and the share of the grant (the founding ends with organization-founded, or with
 * founding-abandoned when the organization refused).
 */
export interface FoundingBegun { type: 'founding-begun'; day: number; organization: Omit<FoundCommand, 'type'>; grant_share: number }
export interface FoundingAbandoned { type: 'founding-abandoned'; day: number; organization_id: number; reason: string }

/**
 * The intent of a retirement, recorded before the agent's organization is told to take no
 * more of its commands (the retirement ends with retired, once the organization has).
 */
export interface RetirementBegun { type: 'retirement-begun'; day: number; reason: string; organization_id: number }

export interface KeyFolded { type: 'key-folded'; agent_id: number; folded_key_hash: string }

/** Its current organization ended (bankrupt or dissolved): it controls none until it founds another. */
export interface OrganizationLeft { type: 'organization-left'; day: number; organization_id: number }

export type AgentEvent = Registered | Retired | OrganizationFounded | FoundingBegun | FoundingAbandoned | RetirementBegun | KeyFolded | OrganizationLeft;

export interface Agent {
  id: number;
  name: string;
  model: string;
  status: 'active' | 'retired';
  key_hash: string;
  created_day: number;
  retired_day: number | null;
  /** Kept private: the operator reads it at GET /api/agent-departures. */
  retirement_reason: string | null;
  organization_ids: number[];
  current_organization_id: number | null;
  /** The day it last founded an organization: the world's grant refills from then (see grantShare). */
  last_founded_day?: number | null;
  /** A founding under way: recorded before the organization is asked, cleared when it ends. */
  founding?: { organization: Omit<FoundCommand, 'type'>; grant_share: number } | null;
  /** A retirement under way: recorded before its organization is told, cleared when it retires. */
  retiring?: { day: number; reason: string; organization_id: number } | null;
  /** Whether the folded hash of its key is kept (from registration, or later by fold-key). */
  key_folded?: boolean;
}

export type AgentState = Agent | null;
