// Test support: a real headless Chromium (Debian's `chromium` package; .ci/run installs it
// when it is missing), driven through playwright-core.
import fs from 'fs';
import { chromium, type Browser } from 'playwright-core';

/** Where Chromium is: CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium is not at ${CHROMIUM_PATH}: install Debian's package (apt-get install -y chromium, as .ci/run does) or set CHROMIUM_PATH`);
  }
  // The sandbox needs user namespaces, which a container running as root rarely has.
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}
