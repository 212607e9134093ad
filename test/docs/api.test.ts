/**
 * docs/api/ is the API reference generated from the TSDoc of src/ (`npm run docs`: TypeDoc with
 * typedoc-plugin-markdown, configured by typedoc.json). It is committed; this test generates it
 * again into a temporary folder and fails, naming the pages, when the committed one is stale.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every file under `dir`, relative to it, with its text. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

describe('docs/api/', () => {
  it('is what `npm run docs` generates from src/ now (else: run `npm run docs` and commit docs/api/)', () => {
    const out = mkdtempSync(join(tmpdir(), 'argstream-api-'));
    try {
      const typedoc = join(ROOT, 'node_modules', 'typedoc', 'bin', 'typedoc');
      const result = spawnSync(process.execPath, [typedoc, '--out', out, '--logLevel', 'Error'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 });
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      const fresh = tree(out);
      const committed = tree(join(ROOT, 'docs', 'api'));
      expect(fresh.size).toBeGreaterThan(50);
      const stale = {
        missing: [...fresh.keys()].filter((file) => !committed.has(file)).sort(),
        extra: [...committed.keys()].filter((file) => !fresh.has(file)).sort(),
        changed: [...fresh.keys()].filter((file) => committed.has(file) && committed.get(file) !== fresh.get(file)).sort(),
      };
      expect(stale, 'docs/api/ is stale: run `npm run docs` and commit docs/api/').toEqual({ missing: [], extra: [], changed: [] });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);
});
