/**
 * Firefox runner: puppeteer-core drives Debian's `firefox-esr` headless over WebDriver BiDi (no
 * geckodriver, no browser download) to the page the Chromium runner uses; the report is read
 * from the page once the checks have run (`browserRunner`, harness.ts). Firefox runs in a process
 * group of its own, killed by pid once the browser is closed, whatever happened.
 */
import { existsSync } from 'node:fs';
import { browserRunner, killGroup, versionOf, waitForGone, withTimeout, type BrowserSession } from '../harness.ts';

/** The Firefox binary: `FIREFOX_PATH`, or Debian's /usr/bin/firefox-esr. */
export function firefoxPath(): string {
  return process.env['FIREFOX_PATH'] ?? '/usr/bin/firefox-esr';
}

/** Why Firefox cannot run here (and how to install it), or `undefined` when it can. */
export function firefoxMissing(): string | undefined {
  return existsSync(firefoxPath())
    ? undefined
    : `no Firefox at ${firefoxPath()}: install it (Debian/Ubuntu: \`apt-get install -y firefox-esr\`) or set FIREFOX_PATH to a Firefox binary`;
}

/** Preferences for a closed network: nothing fetched in the background. */
const PREFS: Record<string, unknown> = {
  'app.update.enabled': false,
  'browser.safebrowsing.malware.enabled': false,
  'browser.safebrowsing.phishing.enabled': false,
  'datareporting.policy.dataSubmissionEnabled': false,
  'extensions.update.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'toolkit.telemetry.enabled': false,
};

/** Firefox, headless, with one page; `close()` closes the browser, then kills its process group. */
export async function launchFirefox(): Promise<BrowserSession> {
  const { default: puppeteer } = await import('puppeteer-core');
  const version = await versionOf(firefoxPath());
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: firefoxPath(), headless: true, extraPrefsFirefox: PREFS, timeout: 30_000 });
  // puppeteer starts Firefox as a process group's leader (detached): killing the group stops its content processes too.
  const pid = browser.process()?.pid;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= withTimeout(browser.close(), 10_000, 'closing Firefox')
      .catch(() => {})
      .finally(async () => {
        if (pid === undefined) return;
        killGroup(pid);
        await waitForGone(-pid, 5_000);
      }));
  try {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error instanceof Error ? error.message : String(error)}`));
    return {
      version,
      goto: async (url) => void (await page.goto(url, { timeout: 30_000 })),
      evaluate: (fn) => page.evaluate(fn) as never,
      click: (selector) => page.click(selector),
      problems: () => problems,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export const firefox = browserRunner(launchFirefox, firefoxMissing);
