// Run by `npm test` (package.json "pretest"), or by hand: `node test/frameworks/install.mjs`.
//
// Framework versions the root package cannot install beside its own (npm allows one `react` at the
// root: React 19 there, React 18 here) are each a small package of their own in a folder of
// test/frameworks/ (react18/). test/examples/frameworks.test.ts bundles the examples against them.
// This installs each folder with `npm ci` when its node_modules is missing or its package-lock.json
// changed since the last install (a marker in node_modules keeps the lock's hash), and prints one
// line when it does. When the install fails (offline), it says so and exits 0: the other tests
// still run, and the tests of that version are skipped saying what to install (with `CI` set they
// fail instead). The same pattern as test/runtimes/install.mjs.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

for (const entry of readdirSync(HERE, { withFileTypes: true })) {
  const dir = join(HERE, entry.name);
  if (!entry.isDirectory() || !existsSync(join(dir, 'package-lock.json'))) continue;
  const modules = join(dir, 'node_modules');
  const marker = join(modules, '.argstream-installed');
  const where = `test/frameworks/${entry.name}`;
  const hash = createHash('sha256')
    .update(readFileSync(join(dir, 'package.json')))
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex');
  const installed = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : undefined;
  if (installed === hash) continue;

  const why = !existsSync(modules) ? 'first run' : installed === undefined ? 'not installed by this script' : 'package-lock.json changed';
  process.stdout.write(`${where}: installing (npm ci, ${why}) … `);
  const started = Date.now();
  // Inside an npm script, npm describes the root project to its children in npm_config_* and
  // npm_package_* variables; the nested install must see the folder as its own project.
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^npm_(package_|lifecycle_|config_local_prefix$|config_allow_scripts$)/i.test(name)) delete env[name];
  }
  const args = ['ci', '--no-audit', '--no-fund', '--loglevel=error'];
  // The npm that runs this script when there is one (npm_execpath), else `npm` on PATH.
  const npmCli = process.env['npm_execpath'];
  const result =
    npmCli !== undefined && /\.[cm]?js$/.test(npmCli)
      ? spawnSync(process.execPath, [npmCli, ...args], { cwd: dir, env, encoding: 'utf8' })
      : spawnSync('npm', args, { cwd: dir, env, encoding: 'utf8', shell: process.platform === 'win32' });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (result.status === 0) {
    writeFileSync(marker, `${hash}\n`);
    console.log(`done in ${seconds} s`);
  } else {
    const output = `${result.stderr ?? ''}\n${result.stdout ?? ''}`;
    const reason =
      result.error?.message ??
      output
        .split('\n')
        .map((line) => line.replace(/^npm (error|ERR!) ?/, '').trim())
        .find((line) => line !== '' && !/^(A complete log|code |errno |syscall )/.test(line)) ??
      `npm ci exited with code ${result.status}`;
    console.log('FAILED');
    console.log(`${where}: npm ci failed after ${seconds} s (${reason}). Its tests will be skipped (they fail with CI set); to run them, install it when online: (cd ${where} && npm ci)`);
  }
}
