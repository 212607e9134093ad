import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const demo = new URL('../examples/live-demo.mjs', import.meta.url).pathname;

// `npm test` builds dist/ first; the examples import the package by its name, as a user would.
describe('examples', () => {
  for (const provider of ['anthropic', 'openai-chat']) {
    it(`live-demo streams the ${provider} turn and ends with the exact arguments`, async () => {
      const { stdout } = await run(process.execPath, [demo, '--fast', '--provider', provider]);
      expect(stdout).toContain('▶ write_file');
      expect(stdout).toContain('creating src/main.rs\n');
      expect(stdout).toContain('println!("{words} words — \\"done\\" ✓");');
      expect(stdout).toContain('arguments equal what the model sent: yes');
      expect(stdout).toMatch(/finished: tool-calls/);
    });
  }
});
