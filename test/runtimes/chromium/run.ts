/**
 * Chromium runner: playwright-core drives the system's Chromium (no browser download), headless,
 * to a page served on a free loopback port that loads the page bundle as a module script; the
 * report is read from the page once the checks have run (`browserRunner`, harness.ts). Chromium
 * runs in a process group of its own, killed by pid once the browser is closed, whatever happened.
 */
import { existsSync } from 'node:fs';
import { browserRunner, killGroup, waitForGone, withTimeout, type BrowserSession } from '../harness.ts';

/** The Chromium binary: `CHROMIUM_PATH`, or Debian's /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
}

/** Why Chromium cannot run here (and how to install it), or `undefined` when it can. */
export function chromiumMissing(): string | undefined {
  return existsSync(chromiumPath())
    ? undefined
    : `no Chromium at ${chromiumPath()}: install it (Debian/Ubuntu: \`apt-get install -y chromium\`) or set CHROMIUM_PATH to a Chromium/Chrome binary`;
}

/** Flags for a closed network: no background connections, no sandbox (CI runs as root). */
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Chromium, headless, with one page. Started as a browser server (a process group of its own, by
 * playwright) so that `close()` can kill it by pid once the browser is closed, whatever happened.
 */
export async function launchChromium(): Promise<BrowserSession> {
  const { chromium: launcher } = await import('playwright-core');
  const server = await launcher.launchServer({ executablePath: chromiumPath(), headless: true, args: ARGS, timeout: 30_000 });
  const pid = server.process().pid;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= withTimeout(server.close(), 10_000, 'closing Chromium')
      .catch(() => {})
      .finally(async () => {
        if (pid === undefined) return;
        killGroup(pid);
        await waitForGone(-pid, 5_000);
      }));
  try {
    const browser = await launcher.connect(server.wsEndpoint(), { timeout: 30_000 });
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    return {
      version: browser.version(),
      goto: async (url) => void (await page.goto(url, { timeout: 30_000 })),
      evaluate: (fn) => page.evaluate(fn),
      click: (selector) => page.click(selector, { timeout: 30_000 }),
      problems: () => problems,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export const chromium = browserRunner(launchChromium, chromiumMissing);
