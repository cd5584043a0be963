// The import rule: the domain (actors/), the HTTP layer (http/) and the codecs (codecs/)
// depend on ports, never on adapters. Nothing under them imports from infra/; only
// infra/app.ts picks the adapters. This test reads the TypeScript sources and names every
// file and import that breaks the rule.
import assert from 'assert/strict';
import fs from 'fs';
import path from 'path';

const ROOT = path.resolve(__dirname, '../..'); // dist/test -> the repository
const GUARDED = ['actors', 'http', 'codecs'];
const INFRA = path.join(ROOT, 'infra');

/** Every module specifier a source names: static imports and re-exports (type-only too), side-effect imports, import() and require(). */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.push(m[1]);
  return found;
}

/** Whether a specifier, named in `file`, leads into infra/. */
function intoInfra(file: string, specifier: string): boolean {
  if (!specifier.startsWith('.')) return /(^|\/)infra(\/|$)/.test(specifier) && !specifier.includes('node_modules');
  const target = path.resolve(path.dirname(file), specifier);
  return target === INFRA || target.startsWith(INFRA + path.sep);
}

function sourcesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('architecture: the import rule', () => {
  it('finds the import forms it scans for', () => {
    const sample = [
      "import { a } from '../infra/a';",
      "import type { B } from '../../infra/store/b';",
      'import {\n  c,\n  d,\n} from "../infra/c";',
      "export { e } from './infra-like/e';",
      "export * from '../infra/f';",
      "import '../infra/side-effect';",
      "const g = await import('../infra/g');",
      "const h = require('../infra/h');",
      "// import { commented } from '../infra/commented';",
      '/* import { blocked } from "../infra/blocked"; */',
      "import nact from 'nact';",
    ].join('\n');
    assert.deepEqual(specifiers(sample).sort(), [
      '../../infra/store/b', '../infra/a', '../infra/c', '../infra/f', '../infra/g', '../infra/h', '../infra/side-effect', './infra-like/e', 'nact',
    ].sort());
    const file = path.join(ROOT, 'actors', 'x.ts');
    assert.equal(intoInfra(file, '../infra/a'), true);
    assert.equal(intoInfra(file, '../infra'), true);
    assert.equal(intoInfra(file, './infra-like/e'), false);
    assert.equal(intoInfra(path.join(ROOT, 'actors', 'clock', 'x.ts'), '../../infra/bus/embedded-bus'), true);
    assert.equal(intoInfra(file, '../actors/ports/store'), false);
  });

  it('no file under actors/, http/ or codecs/ imports from infra/', () => {
    const files = GUARDED.flatMap((dir) => sourcesUnder(path.join(ROOT, dir)));
    assert.ok(files.length > 50, `the sources were found (${files.length} files under ${GUARDED.join(', ')} of ${ROOT})`);
    const broken = files.flatMap((file) => specifiers(fs.readFileSync(file, 'utf8'))
      .filter((s) => intoInfra(file, s))
      .map((s) => `${path.relative(ROOT, file)} imports '${s}'`));
    assert.deepEqual(broken, [], `these imports reach into infra/ (the domain, http and codecs depend on ports only):\n${broken.join('\n')}`);
  });
});

describe('architecture: the history categories', () => {
  it('every category an actor writes to the history is one the rulebook lists (GET /api/rules event_categories)', async () => {
    const { EVENT_CATEGORIES } = await import('../actors/world/rulebook');
    const written = new Set<string>();
    for (const file of sourcesUnder(path.join(ROOT, 'actors'))) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/\bcategory: '([a-z_]+)'/g)) written.add(m[1]);
    }
    assert.ok(written.size >= 20, `the scan finds the categories: ${[...written].join(', ')}`);
    assert.deepEqual([...written].filter((c) => !(c in EVENT_CATEGORIES)), []);
  });
});
