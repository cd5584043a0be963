// The seeded world: a pure function of WORLD_SEED. The map's shape is fixed (so clients
// can rely on emberfall and its neighbours); populations, monsters and the adventurer
// pool vary with the seed.
import { hash32, intBetween, pick, rng } from '../random';
import { numeral } from '../words';
import type { AdventurerSpec, Trait } from '../adventurer/messages';
import { TRAITS } from '../adventurer/messages';
import type { LocationSpec, MarketProfile, Route } from '../location/messages';

export interface SeededOrganization {
  id: number;
  name: string;
  kind: string;
  location_id: string;
  description: string;
  goals: string;
  motto: string;
  treasury: number;
}

export interface GeneratedWorld {
  locations: Array<LocationSpec & { profile: MarketProfile }>;
  organizations: SeededOrganization[];
  adventurers: AdventurerSpec[];
}

interface PlaceTemplate {
  id: string; name: string; kind: string; description: string; profile?: MarketProfile;
  danger: number; population: [number, number]; monsters: [number, number];
}

const PLACES: PlaceTemplate[] = [
  { id: 'emberfall', name: 'Emberfall', kind: 'city', danger: 5, population: [11000, 13000], monsters: [0, 0],
    description: 'A walled trading city around an old forge-temple; the reference market of the realm.' },
  { id: 'greenhollow', name: 'Greenhollow', kind: 'town', danger: 15, profile: { favours: ['timber'] }, population: [3000, 4000], monsters: [15, 30],
    description: 'A timber town in a deep valley of oak and pine; its sawmills keep wood cheap.' },
  { id: 'ironcrag', name: 'Ironcrag', kind: 'town', danger: 25, profile: { favours: ['ore'], scarce: ['food', 'timber'] }, population: [2400, 3200], monsters: [30, 50],
    description: 'A mining town on bare mountain rock: rich in ore, short of food and timber.' },
  { id: 'whisperwood', name: 'Whisperwood', kind: 'wilderness', danger: 35, population: [0, 0], monsters: [120, 180],
    description: 'An old forest where travellers hear voices between the trees; wolves and worse.' },
  { id: 'ashen-moors', name: 'Ashen Moors', kind: 'wilderness', danger: 45, population: [0, 0], monsters: [160, 240],
    description: 'Grey heath scarred by old fires, where raiders and ghouls roam.' },
  { id: 'sunken-crypt', name: 'The Sunken Crypt', kind: 'dungeon', danger: 60, population: [0, 0], monsters: [200, 300],
    description: 'A flooded tomb beneath the forest floor, full of restless dead.' },
  { id: 'frostmaw-deep', name: 'Frostmaw Deep', kind: 'dungeon', danger: 80, population: [0, 0], monsters: [350, 500],
    description: 'Ice-choked mine shafts below Ironcrag, where something old has woken.' },
];

const ROUTES: Array<[string, string, number, number]> = [
  ['emberfall', 'greenhollow', 2, 10],
  ['emberfall', 'ironcrag', 4, 20],
  ['greenhollow', 'ironcrag', 3, 25],
  ['greenhollow', 'whisperwood', 1, 30],
  ['emberfall', 'ashen-moors', 3, 35],
  ['ironcrag', 'ashen-moors', 2, 40],
  ['whisperwood', 'sunken-crypt', 2, 50],
  ['ironcrag', 'frostmaw-deep', 2, 60],
];

const ORGANIZATIONS: Omit<SeededOrganization, 'id'>[] = [
  { name: 'Emberfall Council', kind: 'city council', location_id: 'emberfall', treasury: 20000,
    description: 'The elected council of Emberfall, keeper of roads and walls.', goals: 'Keep the roads open and the markets fed.', motto: 'The hearth endures.' },
  { name: 'Greenhollow Timberwrights', kind: 'lumber guild', location_id: 'greenhollow', treasury: 8000,
    description: 'Foresters and sawyers of the valley.', goals: 'Clear the forest roads of beasts.', motto: 'Every ring a year.' },
  { name: "Ironcrag Delvers' Union", kind: 'mining union', location_id: 'ironcrag', treasury: 8000,
    description: 'The miners who work the deep seams of Ironcrag.', goals: 'Keep the shafts safe and the ore flowing.', motto: 'Down and back again.' },
  { name: 'Order of the Ember Flame', kind: 'temple order', location_id: 'emberfall', treasury: 10000,
    description: 'Priests and wardens sworn to put the restless dead to rest.', goals: 'Cleanse the crypts of the realm.', motto: 'Light in the deep.' },
];

/** The organizations every world begins with have the ids 1..SEEDED_ORGANIZATIONS; later ones without an agent were founded by the world. */
export const SEEDED_ORGANIZATIONS = ORGANIZATIONS.length;

// 41 given names and 32 family names: 1,312 pairs, each used once before any comes round again (adventurerName).
const FIRST_NAMES = ['Aldric', 'Brina', 'Cedric', 'Dara', 'Edda', 'Fenn', 'Garrick', 'Hilde', 'Ivo', 'Jora', 'Kael', 'Lira',
  'Marek', 'Nessa', 'Orin', 'Pella', 'Quill', 'Rowan', 'Sable', 'Tamsin', 'Ulric', 'Vera', 'Wren', 'Yorick', 'Zara',
  'Anselm', 'Bryn', 'Corwin', 'Elowen', 'Gideon', 'Isolde', 'Leof', 'Maud', 'Osric', 'Rhosyn', 'Talia', 'Wystan',
  'Aveline', 'Benedikt', 'Halvard', 'Sigrun'];
const EPITHETS = ['Ashborn', 'Blackbrook', 'Cinderhand', 'Dunmore', 'Emberly', 'Frostvale', 'Greycloak', 'Hollowell',
  'Ironside', 'Larkspur', 'Mossgrave', 'Nightwell', 'Oakheart', 'Redmane', 'Stonefist', 'Thornwood',
  'Amberfield', 'Brackenridge', 'Coldwater', 'Deepdelve', 'Fairweather', 'Galeborn', 'Harrowgate', 'Kestrel',
  'Lowmarsh', 'Marrowby', 'Quickwater', 'Ravensworth', 'Saltmarsh', 'Tallowmere', 'Wolfsbane', 'Yarrowdale'];
const NAME_PAIRS = FIRST_NAMES.length * EPITHETS.length;

/**
 * Adventurer `id`'s name: the ids walk the 1,312 pairs of given and family name in an order
 * the seed fixes (a step coprime with their number), so no two of the first 1,312 share a
 * name and neighbours share neither part; after them the names come round with a numeral
 * ("Brina Kestrel II").
 */
export function adventurerName(seed: string, id: number): string {
  let step = 1 + 2 * (hash32(seed, 'adventurer-names') % (NAME_PAIRS / 2)); // odd, so coprime with the 32 family names
  if (step % FIRST_NAMES.length === 0) step += 2;
  const i = (hash32(seed, 'adventurer-names-start') + step * (id - 1)) % NAME_PAIRS;
  // Given name and family name by the two remainders: a bijection, as 41 and 32 are coprime.
  return `${FIRST_NAMES[i % FIRST_NAMES.length]} ${EPITHETS[i % EPITHETS.length]}${numeral(1 + Math.floor((id - 1) / NAME_PAIRS))}`;
}

export const SEEDED_ADVENTURERS = 60;

export function generateAdventurer(seed: string, id: number): AdventurerSpec {
  const r = rng(seed, 'adventurer', id);
  const traitCount = r() < 0.35 ? 2 : 1;
  const traits: Trait[] = [];
  while (traits.length < traitCount) {
    const t = pick(r, TRAITS);
    if (!traits.includes(t)) traits.push(t);
  }
  return { id, name: adventurerName(seed, id), strength: intBetween(r, 8, 20), level: 1, experience: 0, traits };
}

export function generateWorld(seed: string): GeneratedWorld {
  const routesOf = (id: string): Route[] => ROUTES
    .filter(([a, b]) => a === id || b === id)
    .map(([a, b, distance, danger]) => ({ destination_id: a === id ? b : a, distance_days: distance, danger }));
  const locations = PLACES.map((p): LocationSpec & { profile: MarketProfile } => {
    const r = rng(seed, 'location', p.id);
    return {
      id: p.id, name: p.name, kind: p.kind, description: p.description, danger: p.danger,
      population: intBetween(r, p.population[0], p.population[1]),
      monster_population: intBetween(r, p.monsters[0], p.monsters[1]),
      routes: routesOf(p.id),
      profile: p.profile ?? {},
    };
  });
  const organizations = ORGANIZATIONS.map((o, i) => ({ ...o, id: i + 1 }));
  const adventurers = Array.from({ length: SEEDED_ADVENTURERS }, (_, i) => generateAdventurer(seed, i + 1));
  return { locations, organizations, adventurers };
}
