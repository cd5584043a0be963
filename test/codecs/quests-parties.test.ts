// QuestCreate, AdminQuestCreate, QuestSponsorCreate, PartyCreate, PartyMemberCreate,
// PartyDispatch and HireCreate (spec part 2).
import {
  AdminQuestCreate, HireCreate, PartyCreate, PartyDispatch, PartyMemberCreate, QuestCreate, QuestSponsorCreate,
} from '../../codecs/requests';
import { describeShape, projectBound, id, int, orNull, text, type Shape } from './harness';

/** QuestCreate and AdminQuestCreate differ only in the upper bounds of reward and deadline_days. */
const quest = (maxReward: number, maxDeadline: number): Shape => ({
  minimal: {
    title: 'Clear the road',
    description: 'Wolves harry the north road.',
    requester_id: 3,
    location_id: 'greenhollow',
    reward: 100,
  },
  defaults: { deadline_days: null, minimum_strength: 0, minimum_reputation: 0, minimum_relationship: -100 },
  rules: [
    text('title', 3, 120),
    text('description', 10, 2000),
    id('requester_id'),
    projectBound(text('location_id', 2, 40)),
    int('reward', 1, maxReward),
    orNull(int('deadline_days', 1, maxDeadline)),
    int('minimum_strength', 0, 10000),
    int('minimum_reputation', 0, 10000),
    int('minimum_relationship', -100, 100),
  ],
});

describe('request codecs: quests and parties', () => {
  describeShape('QuestCreate', QuestCreate, quest(1_000_000, 365));

  describeShape('AdminQuestCreate', AdminQuestCreate, quest(10_000_000, 3650));

  describeShape('QuestSponsorCreate', QuestSponsorCreate, {
    minimal: { organization_id: 4, amount: 50 },
    defaults: {},
    rules: [id('organization_id'), int('amount', 1, 1_000_000)],
  });

  describeShape('PartyCreate', PartyCreate, {
    minimal: { organization_id: 4, name: 'Vanguard' },
    defaults: {},
    rules: [id('organization_id'), text('name', 3, 80)],
  });

  describeShape('PartyMemberCreate', PartyMemberCreate, {
    minimal: { adventurer_id: 12 },
    defaults: {},
    rules: [id('adventurer_id')],
  });

  describeShape('PartyDispatch', PartyDispatch, {
    minimal: { quest_id: 7 },
    defaults: {},
    rules: [id('quest_id')],
  });

  describeShape('HireCreate', HireCreate, {
    minimal: { organization_id: 4, adventurer_id: 12 },
    defaults: {},
    rules: [id('organization_id'), id('adventurer_id')],
  });
});
