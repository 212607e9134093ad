// Run by `npm test` (package.json "pretest"), or by hand: `node test/runtimes/install.mjs`.
//
// The runtimes the portable suite runs on (Node 24, Deno, Bun, workerd, edge-runtime: about
// 530 MB) are the devDependencies of test/runtimes/package.json, not of the root package, so a
// contributor's `npm ci` and `npm start` do without them. This installs them with `npm ci` in
// test/runtimes when its node_modules is missing or its package-lock.json changed since the last
// install (a marker in node_modules keeps the lock's hash), and prints one line when it does.
// When the install fails (offline), it says so and exits 0: the other tests still run, and the
// runtime tests are skipped saying what to install (with `CI` set they fail instead).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = dirname(fileURLToPath(import.meta.url));
const MODULES = join(DIR, 'node_modules');
const MARKER = join(MODULES, '.argstream-installed');
const WHERE = 'test/runtimes';

const hash = createHash('sha256')
  .update(readFileSync(join(DIR, 'package.json')))
  .update(readFileSync(join(DIR, 'package-lock.json')))
  .digest('hex');

const installed = existsSync(MARKER) ? readFileSync(MARKER, 'utf8').trim() : undefined;
if (installed !== hash) {
  const why = !existsSync(MODULES) ? 'first run' : installed === undefined ? 'not installed by this script' : 'package-lock.json changed';
  process.stdout.write(`${WHERE}: installing the runtime tests' Node 24, Deno, Bun, workerd and edge-runtime (npm ci, ~530 MB, ${why}) … `);
  const started = Date.now();

  // Inside an npm script, npm describes the root project to its children in npm_config_* and
  // npm_package_* variables; the nested install must see test/runtimes as its own project.
  const env = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^npm_(package_|lifecycle_|config_local_prefix$|config_allow_scripts$)/i.test(name)) delete env[name];
  }
  const args = ['ci', '--no-audit', '--no-fund', '--loglevel=error'];
  // The npm that runs this script when there is one (npm_execpath), else `npm` on PATH.
  const npmCli = process.env['npm_execpath'];
  const result =
    npmCli !== undefined && /\.[cm]?js$/.test(npmCli)
      ? spawnSync(process.execPath, [npmCli, ...args], { cwd: DIR, env, encoding: 'utf8' })
      : spawnSync('npm', args, { cwd: DIR, env, encoding: 'utf8', shell: process.platform === 'win32' });

  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (result.status === 0) {
    writeFileSync(MARKER, `${hash}\n`);
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
    console.log(
      `${WHERE}: npm ci failed after ${seconds} s (${reason}). The runtime tests will be skipped (they fail with CI set); ` +
        `to run them, install the runtimes when online: (cd ${WHERE} && npm ci)`,
    );
  }
}
