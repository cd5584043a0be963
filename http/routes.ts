// The route table: every endpoint the service answers, in one list.
import { agentRoutes } from './handlers/agents';
import { diplomacyRoutes } from './handlers/diplomacy';
import { economyRoutes } from './handlers/economy';
import { operatorRoutes } from './handlers/operator';
import { organizationRoutes } from './handlers/organizations';
import { placeRoutes } from './handlers/places';
import { questRoutes } from './handlers/quests';
import { worldRoutes } from './handlers/world';
import type { Route } from './route';

export const routes: Route[] = [];
routes.push(
  ...agentRoutes,
  ...organizationRoutes,
  ...placeRoutes,
  ...economyRoutes,
  ...questRoutes,
  ...diplomacyRoutes,
  ...operatorRoutes,
  ...worldRoutes(() => routes),
);
