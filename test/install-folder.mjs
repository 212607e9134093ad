// The nested installs of `npm test`'s pretest (test/runtimes/, test/frameworks/*): a folder with a
// package.json and package-lock.json of its own, installed with `npm ci` when its node_modules is
// missing or its lock changed since the last install (a marker in node_modules keeps the lock's
// hash), with one line printed when it does. A failed install (offline) is said and is not an
// error: the other tests still run, and the folder's tests are skipped saying what to install
// (with `CI` set they fail instead).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Install `dir` (shown as `where`) with `npm ci` if it needs it.
 * @param {string} dir
 * @param {string} where
 * @param {string} what what is installed, for the line printed (`the runtime tests' Node 24, …`)
 */
export function installFolder(dir, where, what) {
  const modules = join(dir, 'node_modules');
  const marker = join(modules, '.argstream-installed');
  const hash = createHash('sha256')
    .update(readFileSync(join(dir, 'package.json')))
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex');
  const installed = existsSync(marker) ? readFileSync(marker, 'utf8').trim() : undefined;
  if (installed === hash) return;

  const why = !existsSync(modules) ? 'first run' : installed === undefined ? 'not installed by this script' : 'package-lock.json changed';
  process.stdout.write(`${where}: installing ${what} (npm ci, ${why}) … `);
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
    return;
  }
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
