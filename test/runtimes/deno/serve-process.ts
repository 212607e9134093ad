/**
 * Start a runtime that reads a server script on stdin and listens on a free loopback port, and
 * wait until it says `listening`. Shared by the Deno and Bun example runners.
 */
import { spawn } from 'node:child_process';
import { freePort } from '../harness.ts';

/** A running server process. */
export interface ServedProcess {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  close(): Promise<void>;
}

/** Run `bin args` with `script` on stdin, `PORT` and `WORKER_ENV` (JSON of `env`) set. */
export async function spawnServer(bin: string, args: readonly string[], script: string, env: Readonly<Record<string, string>>, what: string): Promise<ServedProcess> {
  const port = await freePort();
  const child = spawn(bin, args, { env: { ...process.env, PORT: String(port), WORKER_ENV: JSON.stringify(env), NO_COLOR: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(script);
  let output = '';
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start within 30 s:\n${output}`)), 30_000);
    const listen = (text: string) => {
      output += text;
      if (output.includes('listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.setEncoding('utf8').on('data', listen);
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`${what} exited before listening:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      if (!exited) {
        child.kill('SIGTERM');
        await exit;
      }
    },
  };
}
