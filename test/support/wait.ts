// Waiting in a test for what it checks to have happened, rather than for a fixed time a
// loaded machine may overrun.

/** Resolves once `check` holds, looking every `everyMs`; fails after `ms` naming `what` (a function: said as it is then). */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string | (() => string), ms = 10_000, everyMs = 50): Promise<void> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, everyMs))) {
    if (await check()) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
  }
}
