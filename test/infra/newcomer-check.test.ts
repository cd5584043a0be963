// The day's initiative taken again brings no second newcomer (actors/clock/daily.ts
// `newcomerArrivedToday`): today's newcomer is found among the events written since the
// line that began the day, whatever day a later event carries and whatever became of the
// newcomer since; before such a line exists, among the available adventurers.
import assert from 'assert/strict';
import { newcomerArrivedToday } from '../../actors/clock/daily';
import { dayBeganSummary } from '../../actors/clock/actor';
import type { HistoryEntry, PersistedEvent, ProjectionRow } from '../../actors/ports/store';
import { SqliteStore } from '../../infra/store/sqlite-store';
import { tempDir } from '../support/world';

const DAY = 6;

describe("the check for today's newcomer", () => {
  let store: SqliteStore;
  let written = 0;
  beforeEach(() => { store = new SqliteStore(tempDir()); });
  afterEach(async () => { await store.close(); });

  /** One write with these history entries and rows, as an actor would make it. */
  const write = (history: HistoryEntry[], rows: ProjectionRow[] = []) =>
    store.engine.persist({ key: `test:${++written}`, sequenceNumber: 1, createdAt: Date.now(), data: { events: [] }, tags: [], isDeleted: false } as PersistedEvent, { history, rows });
  const dayBegan = (day: number) => write([{ day, category: 'world', agent_id: null, organization_ids: [], summary: dayBeganSummary(day) }]);
  /** An adventurer's own event (an arrival, a recovery, a quest endured) and its row. */
  const adventurerEvent = (id: number, day: number, joinedDay: number, status = 'available') =>
    write([{ day, category: 'adventurer', agent_id: null, organization_ids: [], summary: `Adventurer ${id} did something`, data: { adventurer_id: id } }],
      [{ kind: 'adventurer', id, status, doc: { id, joined_day: joinedDay, status } }]);

  it('finds a newcomer written after the day began, past later events that carry an earlier day, and past a page of them', async () => {
    await dayBegan(DAY - 1);
    await adventurerEvent(1, DAY - 1, DAY - 1); // yesterday's newcomer
    await dayBegan(DAY);
    await adventurerEvent(2, DAY, DAY, 'employed'); // today's, hired since: no longer available
    // Events written after it that carry yesterday's day (a request that raced the tick, an action resumed at start-up).
    for (let i = 0; i < 150; i++) await adventurerEvent(100 + i, DAY - 1, 1);
    assert.equal(await newcomerArrivedToday(store, DAY), true);
  });

  it('finds none when the events since the day began are of adventurers who joined before', async () => {
    await dayBegan(DAY - 1);
    await adventurerEvent(1, DAY - 1, DAY - 1);
    await dayBegan(DAY);
    await adventurerEvent(3, DAY, 2);
    await adventurerEvent(4, DAY, 3);
    assert.equal(await newcomerArrivedToday(store, DAY), false);
  });

  it('does not count an adventurer who joined today but arrived before the line that began the day', async () => {
    // (An event stamped with a day that had not begun cannot be today's arrival: the initiative follows the line.)
    await adventurerEvent(5, DAY, DAY);
    await dayBegan(DAY);
    assert.equal(await newcomerArrivedToday(store, DAY), false);
  });

  it('without the line that begins the day, looks among the available adventurers', async () => {
    await adventurerEvent(6, DAY, DAY);
    assert.equal(await newcomerArrivedToday(store, DAY), true);
    assert.equal(await newcomerArrivedToday(store, DAY + 1), false);
  });
});
