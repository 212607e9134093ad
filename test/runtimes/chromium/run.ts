/**
 * Chromium runner: playwright-core drives the system's Chromium (no browser download), headless,
 * to a page served on a free loopback port that loads the page bundle as a module script; the
 * report is read from the page once the checks have run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Report } from '../report.ts';
import type { Runner } from '../harness.ts';

/** The Chromium binary: `CHROMIUM_PATH`, or Debian's /usr/bin/chromium. */
export function chromiumPath(): string {
  return process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
}

/** Flags for a closed network: no background connections, no sandbox (CI runs as root). */
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const PAGE = '<!doctype html><meta charset="utf-8"><title>argstream portable checks</title><script type="module" src="/page.mjs"></script>';

export const chromium: Runner = {
  missing: () =>
    existsSync(chromiumPath())
      ? undefined
      : `no Chromium at ${chromiumPath()}: install it (Debian/Ubuntu: \`apt-get install -y chromium\`) or set CHROMIUM_PATH to a Chromium/Chrome binary`,
  async run(bundlesDir) {
    const { chromium: launcher } = await import('playwright-core');
    const bundle = readFileSync(join(bundlesDir, 'page.mjs'));
    const server = createServer((request, response) => {
      if (request.url === '/page.mjs') response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle);
      else if (request.url === '/') response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
      else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const browser = await launcher.launch({ executablePath: chromiumPath(), headless: true, args: ARGS });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      try {
        await page.waitForFunction(() => (globalThis as Record<string, unknown>)['argstreamReport'] !== undefined, undefined, { timeout: 60_000 });
      } catch (error) {
        throw new Error(`the page left no report: ${String(error)}\n${problems.join('\n')}`);
      }
      const report = (await page.evaluate(() => (globalThis as Record<string, unknown>)['argstreamReport'])) as Report;
      return { version: browser.version(), report, smoke: [] };
    } finally {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    }
  },
};
