// The README's screenshot of the spectator page: a fresh world with a few organizations,
// quests and days, photographed in headless Chromium.
//   npm run build && node dist/bench/screenshot.js [docs/spectator-page.png]
import fs from 'fs';
import path from 'path';
import { startTestWorld } from '../test/support/world';
import { launchChromium } from '../test/browser/chromium';

async function main(out: string): Promise<void> {
  const w = await startTestWorld({ store: 'sqlite', bus: 'local' });
  try {
    const founders = [
      ['The Lantern Company', 'merchant company', 'emberfall'],
      ['Order of the Iron Road', 'mercenary company', 'ironcrag'],
      ['Greenhollow Herbalists', 'guild', 'greenhollow'],
    ] as const;
    for (const [name, kind, location] of founders) {
      const agent = await w.register();
      const org = await w.post('/api/organizations', { name, kind, location_id: location }, agent.key);
      if (org.status !== 201) throw new Error(`founding ${name}: ${org.text}`);
      if (kind === 'merchant company') {
        await w.post('/api/quests', { requester_id: org.body.id, title: 'Escort the salt caravan', description: 'Guard the wagons from Emberfall to Ironcrag.', location_id: 'emberfall', reward: 240, deadline_days: 12 }, agent.key);
        await w.post('/api/trade', { organization_id: org.body.id, resource: 'food', side: 'buy', quantity: 40 }, agent.key);
      }
    }
    for (let i = 0; i < 4; i++) await w.tick();
    const browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${w.url}/`);
    await page.waitForSelector('#live[data-state="live"]');
    await page.waitForSelector('#markets tbody tr');
    await w.tick();
    await page.waitForTimeout(1_500);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    await page.screenshot({ path: out, fullPage: true });
    await browser.close();
    console.log(`wrote ${out}`);
  } finally {
    await w.close();
    fs.rmSync(w.dataDir, { recursive: true, force: true });
  }
}

main(process.argv[2] ?? 'docs/spectator-page.png').catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
