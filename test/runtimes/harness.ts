/** Shared by the runners: child processes, free ports, reading the report a runtime printed, browsers. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPORT_PREFIX, type Report } from './report.ts';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const RUNTIMES_DIR = fileURLToPath(new URL('./', import.meta.url));

/** What a runner hands back: the portable report, the runtime's version, and smoke results. */
export interface RunOutcome {
  readonly version: string;
  readonly report: Report;
  /** Runtime-specific smoke checks (src/ run directly, `deno check`, …). */
  readonly smoke: readonly SmokeResult[];
}

export interface SmokeResult {
  readonly name: string;
  /** Why it failed; `undefined` when it passed. */
  readonly error?: string;
  /** A known bug outside this suite that makes it fail: reported, not counted, until it passes. */
  readonly knownFailing?: string;
}

export interface Runner {
  /** Why the runtime cannot run here (and what to install), or `undefined` when it can. */
  missing(): string | undefined;
  run(bundlesDir: string): Promise<RunOutcome>;
}

/**
 * A runtime binary that test/runtimes/package.json installs (`npm test` runs `npm ci` there on
 * first run: install.mjs), from test/runtimes/node_modules/.bin, or `undefined` when it is not
 * installed.
 */
export function localBin(name: string): string | undefined {
  const path = join(RUNTIMES_DIR, 'node_modules', '.bin', name);
  return existsSync(path) ? path : undefined;
}

/** What a runner's `missing()` says when a runtime of test/runtimes/package.json is not installed. */
export function notInstalled(what: string): string {
  return `${what} is missing from test/runtimes/node_modules: run \`npm test\` (it installs the runtimes on first run) or \`node test/runtimes/install.mjs\` (npm ci in test/runtimes)`;
}

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run a command to its end (killed after `timeoutMs`), collecting its output. */
export function execute(command: string, args: readonly string[], options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Run npm (the one running this process when there is one: `npm_execpath`, else `npm` on PATH) in
 * `cwd` as a project of its own: the variables in which an npm script describes the root project
 * to its children are left out.
 */
export function npm(args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<ProcessResult> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_(package_|lifecycle_|config_local_prefix$|config_allow_scripts$)/i.test(name)) env[name] = value;
  }
  const cli = process.env['npm_execpath'];
  if (cli !== undefined && /\.[cm]?js$/.test(cli)) return execute(process.execPath, [cli, ...args], { cwd, env, timeoutMs });
  return execute(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, env, timeoutMs });
}

/** The report line a runtime printed, parsed; throws with the output when there is none. */
export function reportFrom(result: ProcessResult, what: string): Report {
  const line = result.stdout.split('\n').find((l) => l.startsWith(REPORT_PREFIX));
  if (line === undefined) {
    throw new Error(`${what} printed no report (exit code ${result.code})\n--- stdout\n${result.stdout.slice(-3000)}\n--- stderr\n${result.stderr.slice(-3000)}`);
  }
  return JSON.parse(line.slice(REPORT_PREFIX.length)) as Report;
}

/** Run a smoke command: it passes when it exits 0 and prints a line matching `expect`. */
export async function smoke(
  name: string,
  command: string,
  args: readonly string[],
  expect: RegExp,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; knownFailing?: string } = {},
): Promise<SmokeResult> {
  const result = await execute(command, args, options);
  const known = options.knownFailing === undefined ? {} : { knownFailing: options.knownFailing };
  if (result.code === 0 && expect.test(result.stdout)) return { name, ...known };
  return { name, error: `exit code ${result.code}\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-2000)}`, ...known };
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** GET `url` until it answers (a server starting up), for at most `timeoutMs`. */
export async function fetchWhenUp(url: string, timeoutMs: number, isAlive: () => boolean): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fetch(url);
    } catch (error) {
      if (!isAlive()) throw new Error(`the server exited before answering ${url}`);
      if (Date.now() > deadline) throw new Error(`no answer from ${url} within ${timeoutMs} ms: ${String(error)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The first line of a command's `--version` output. */
export async function versionOf(command: string, args: readonly string[] = ['--version']): Promise<string> {
  const result = await execute(command, args, { timeoutMs: 20_000 });
  return (result.stdout.trim() || result.stderr.trim()).split('\n')[0] ?? 'unknown';
}

/** `promise`, or an error saying what did not happen within `ms` (the work itself is not stopped). */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A process started by {@link spawnGroup}. */
export interface GroupProcess {
  readonly pid: number;
  readonly child: ChildProcess;
  /** Whether the process (the group's leader) is still running. */
  alive(): boolean;
  /** The last few KB it wrote (stdout and stderr, interleaved), for error messages. */
  output(): string;
  /**
   * Kill its whole process group (SIGTERM first when `terminateFirst`, SIGKILL in any case) and
   * wait (at most 5 s) until none of it is left. Safe to call twice.
   */
  stop(): Promise<void>;
}

/** Kill a process group by its leader's pid; a group that is gone already is not an error. */
export function killGroup(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Whether a process or process group (`-pgid`) exists; a zombie not yet reaped counts. */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Wait (polling, at most `timeoutMs`) until the process `pid` is gone, or with `-pgid`, every process of that group. */
export async function waitForGone(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (exists(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Start a process as the leader of a process group of its own (`detached`), so that
 * {@link GroupProcess.stop} stops everything it started (a driver's browser, a browser's content
 * processes) by pid. The group is also killed when this Node process exits first (a test run that
 * ends, or is killed by its timeout, while a check hangs).
 *
 * `extraFds`: further pipes after stdin/stdout/stderr (fd 3, …), e.g. for `Xvfb -displayfd 3`.
 * `terminateFirst`: `stop()` sends SIGTERM and gives the leader 2 s to clean up (Xvfb removes its
 * socket in /tmp/.X11-unix) before the SIGKILL.
 */
export function spawnGroup(command: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; extraFds?: number; terminateFirst?: boolean } = {}): GroupProcess {
  const stdio: Array<'ignore' | 'pipe'> = ['ignore', 'pipe', 'pipe', ...Array.from({ length: options.extraFds ?? 0 }, () => 'pipe' as const)];
  const child = spawn(command, args, { cwd: ROOT, env: options.env ?? process.env, stdio, detached: true });
  if (child.pid === undefined) {
    // spawn reports a missing binary asynchronously; give the error a place to land.
    child.on('error', () => {});
    throw new Error(`could not start ${command}`);
  }
  const pid = child.pid;
  let output = '';
  const keep = (text: string) => {
    output = (output + text).slice(-8000);
  };
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  child.on('error', (error) => keep(`\n[${command}: ${error.message}]\n`));
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const onNodeExit = () => killGroup(pid);
  process.once('exit', onNodeExit);
  void exit.then(() => {
    exited = true;
  });
  return {
    pid,
    child,
    alive: () => !exited && child.exitCode === null && child.signalCode === null,
    output: () => output,
    async stop() {
      // The leader may be gone while the rest of its group lives on: kill the group regardless,
      // and wait until no process is left in it.
      if (options.terminateFirst === true && !exited) {
        killGroup(pid, 'SIGTERM');
        await withTimeout(exit, 2_000, `${command} (pid ${pid}) after SIGTERM`).catch(() => {});
      }
      killGroup(pid);
      await withTimeout(exit, 5_000, `${command} (pid ${pid}) after SIGKILL`).catch(() => {});
      await waitForGone(-pid, 5_000);
      process.removeListener('exit', onNodeExit);
      for (const stream of [child.stdout, child.stderr, ...child.stdio.slice(3)]) stream?.destroy();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Browsers: one page bundle (page.mjs), three engines driven the same way

/** One browser, started by a runner, on one page at a time. */
export interface BrowserSession {
  /** The engine's version (`150.0.7871.100`, `Mozilla Firefox 140.12.0esr`, `WebKitGTK 2.50.6`). */
  readonly version: string;
  /** Load `url` in the session's page and wait for its `load` event. */
  goto(url: string): Promise<void>;
  /**
   * Run `fn` in the page and hand back its (JSON-like) result. `fn` is sent as source text: it
   * must not refer to anything outside itself.
   */
  evaluate<T>(fn: () => T | Promise<T>): Promise<T>;
  /** Click the first element matching a CSS selector, as a user would. */
  click(selector: string): Promise<void>;
  /** Errors the page threw (uncaught errors and rejections) where the driver reports them: Chromium and Firefox, not WebKit. */
  problems(): readonly string[];
  /** Close the browser and stop every process started for it, by pid. Safe to call twice. */
  close(): Promise<void>;
}

/** Poll `predicate` in the page every 50 ms until it is true; throws after `timeoutMs`. */
export async function waitInPage(session: BrowserSession, predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await session.evaluate(predicate)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The page that runs the portable checks: a classic script first records what the page throws
 * (on `argstreamProblems`: a module that fails to load in an engine says why), then the page
 * bundle runs the checks and leaves `argstreamReport`.
 */
const PAGE = `<!doctype html><meta charset="utf-8"><title>argstream portable checks</title>
<script>
globalThis.argstreamProblems = [];
addEventListener('error', (event) => argstreamProblems.push('error: ' + event.message + ' at ' + event.filename + ':' + event.lineno));
addEventListener('unhandledrejection', (event) => argstreamProblems.push('unhandled rejection: ' + String(event.reason && event.reason.stack || event.reason)));
</script>
<script type="module" src="/page.mjs"></script>`;

/** How long the portable checks may take in a browser before the runner gives up (and stops it). */
export const BROWSER_REPORT_TIMEOUT_MS = 240_000;

/**
 * A runner for a browser engine: serve the page bundle on a free loopback port, `launch` the
 * browser, open the page, wait for the report, and close the browser whatever happened.
 */
export function browserRunner(launch: () => Promise<BrowserSession>, missing: () => string | undefined, reportTimeoutMs = BROWSER_REPORT_TIMEOUT_MS): Runner {
  return {
    missing,
    async run(bundlesDir) {
      const bundle = readFileSync(join(bundlesDir, 'page.mjs'));
      const server = createHttpServer((request, response) => {
        const chunk = /^\/page-chunks\/[\w-]+\.mjs$/.exec(request.url ?? '')?.[0];
        if (request.url === '/page.mjs') response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle);
        else if (chunk !== undefined && existsSync(join(bundlesDir, chunk))) response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(join(bundlesDir, chunk)));
        else if (request.url === '/') response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        else response.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      let session: BrowserSession | undefined;
      try {
        session = await launch();
        const page = session;
        await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
        try {
          await waitInPage(page, () => (globalThis as Record<string, unknown>)['argstreamReport'] !== undefined, reportTimeoutMs, 'the page left no report');
        } catch (error) {
          const problems = await page.evaluate(() => (globalThis as Record<string, unknown>)['argstreamProblems']).catch(() => undefined);
          throw new Error([(error as Error).message, ...page.problems(), ...((problems as string[] | undefined) ?? [])].join('\n'));
        }
        const report = await page.evaluate(() => (globalThis as Record<string, unknown>)['argstreamReport'] as Report);
        return { version: page.version, report, smoke: [] };
      } finally {
        await session?.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
