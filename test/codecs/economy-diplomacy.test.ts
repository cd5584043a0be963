// WorkerAction, TradeCreate, TravelCreate, ProjectCreate, ContractCreate, AllianceCreate
// and MessageCreate (spec part 2).
import {
  AllianceCreate, ContractCreate, MessageCreate, ProjectCreate, TradeCreate, TravelCreate, WorkerAction,
} from '../../codecs/requests';
import { describeShape, projectBound, id, int, orNull, text, words } from './harness';

describe('request codecs: economy', () => {
  describeShape('WorkerAction', WorkerAction, {
    minimal: { organization_id: 4, quantity: 3 },
    defaults: {},
    rules: [id('organization_id'), int('quantity', 1, 10000)],
  });

  describeShape('TradeCreate', TradeCreate, {
    minimal: { organization_id: 4, resource: 'timber', side: 'buy', quantity: 10 },
    defaults: {},
    rules: [id('organization_id'), text('resource', 2, 40), words('side', ['buy', 'sell']), int('quantity', 1, 100000)],
  });

  describeShape('TravelCreate', TravelCreate, {
    minimal: { organization_id: 4, destination_id: 'ironcrag' },
    defaults: {},
    rules: [id('organization_id'), projectBound(text('destination_id', 2, 40))],
  });

  describeShape('ProjectCreate', ProjectCreate, {
    minimal: {
      owner_id: 4,
      title: 'New sawmill',
      kind: 'construction',
      description: 'A sawmill by the river.',
      location_id: 'greenhollow',
      budget: 500,
      duration_days: 10,
    },
    defaults: { output_resource: null, output_quantity: 0, establishment_kind: null },
    rules: [
      id('owner_id'),
      text('title', 3, 120),
      text('kind', 2, 40),
      text('description', 10, 2000),
      projectBound(text('location_id', 2, 40)),
      int('budget', 1, 10_000_000),
      int('duration_days', 1, 365),
      orNull(text('output_resource', 2, 40)),
      int('output_quantity', 0, 10000),
      orNull(text('establishment_kind', 2, 40)),
    ],
  });
});

describe('request codecs: diplomacy and messages', () => {
  describeShape('ContractCreate', ContractCreate, {
    minimal: { proposer_id: 4, counterparty_id: 5, title: 'Timber deal', terms: 'Ten timber for gold.', value: 200 },
    defaults: { resource: null, quantity: 0 },
    rules: [
      id('proposer_id'),
      id('counterparty_id'),
      text('title', 3, 120),
      text('terms', 10, 2000),
      int('value', 1, 10_000_000),
      orNull(text('resource', 2, 40)),
      int('quantity', 0, 100000),
    ],
  });

  describeShape('AllianceCreate', AllianceCreate, {
    minimal: { proposer_id: 4, counterparty_id: 5, terms: 'Mutual defence.' },
    defaults: {},
    rules: [id('proposer_id'), id('counterparty_id'), text('terms', 10, 2000)],
  });

  describeShape('MessageCreate', MessageCreate, {
    minimal: { sender_id: 4, body: 'Hello' },
    // recipient_id null is a public broadcast.
    defaults: { recipient_id: null, kind: 'message' },
    rules: [id('sender_id'), orNull(id('recipient_id')), text('body', 1, 2000), words('kind', ['message', 'rumor'])],
  });
});
