/** Running the built `argstream` command (`dist/cli/main.js`, which `npm test` builds first). */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FIXTURES } from '../helpers.ts';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The path of a provider recording. */
export function recordingPath(file: string): string {
  return `${FIXTURES}providers/${file}`;
}

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Fails with what to do when the command has not been built. */
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
}

/** Start `node dist/cli/main.js …args`. */
export function startCli(args: readonly string[]): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
}

/** Run the command to its end, with `input` on its standard input (closed at once when absent). */
export function runCli(args: readonly string[], input?: Uint8Array | string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = startCli(args);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** Resolves once `stream` has produced text for which `test` holds (all the text so far). */
export function waitForOutput(stream: NodeJS.ReadableStream, test: (text: string) => boolean, what: string, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      stream.off('data', onData);
      reject(new Error(`no ${what} within ${timeoutMs} ms; got: ${text.slice(-500)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (test(text)) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(text);
      }
    };
    stream.on('data', onData);
  });
}
