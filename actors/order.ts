// The ask order. An actor may ask (request and await a reply from) only actors of a
// lower rank; tells may go anywhere. A cycle of asks is therefore impossible, so no two
// actors ever wait on each other. docs/architecture.md explains each edge.
export const RANK = {
  clock: 100,
  agent: 90,
  'world-event': 85,
  contract: 80,
  relationship: 77,
  alliance: 75,
  quest: 70,
  location: 60,
  adventurer: 50,
  organization: 40,
  suggestion: 10,
} as const;
