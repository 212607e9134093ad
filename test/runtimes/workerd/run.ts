/**
 * workerd runner (`workerd` npm package, the runtime of Cloudflare Workers): serves the worker
 * bundle with config.capnp on a free loopback port, calls it once, and stops the server.
 */
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Report } from '../report.ts';
import { fetchWhenUp, freePort, localBin, notInstalled, RUNTIMES_DIR, versionOf, type Runner } from '../harness.ts';

export const workerd: Runner = {
  missing: () => (localBin('workerd') ? undefined : notInstalled('workerd')),
  async run(bundlesDir) {
    const bin = localBin('workerd')!;
    const version = await versionOf(bin);
    // The config embeds worker.mjs by a path relative to itself: put it beside the bundle.
    copyFileSync(join(RUNTIMES_DIR, 'workerd', 'config.capnp'), join(bundlesDir, 'config.capnp'));
    const port = await freePort();
    const server = spawn(bin, ['serve', 'config.capnp', '--socket-addr', `http=127.0.0.1:${port}`], { cwd: bundlesDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    server.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    let exited = false;
    server.on('exit', () => (exited = true));
    try {
      const response = await fetchWhenUp(`http://127.0.0.1:${port}/`, 20_000, () => !exited);
      if (!response.ok) throw new Error(`workerd answered ${response.status}: ${(await response.text()).slice(0, 2000)}\n${output}`);
      return { version, report: (await response.json()) as Report, smoke: [] };
    } catch (error) {
      throw new Error(`${String(error)}\n--- workerd output\n${output.slice(-3000)}`);
    } finally {
      if (!exited) {
        const done = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await done;
      }
    }
  },
};
