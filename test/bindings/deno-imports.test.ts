/**
 * deno.json maps each framework a binding imports to one npm specifier (Deno's take one `^`, `~` or
 * exact version, or `*`: no `||`, no `>=`): it must admit every major version that package.json's
 * peer range admits, or a Deno application on another major gets a second copy of its framework
 * (React's hooks then fail).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const deno = JSON.parse(readFileSync(new URL('deno.json', ROOT), 'utf8')) as { imports: Record<string, string> };
const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { peerDependencies: Record<string, string> };

/** The majors a `^x.y.z` / `>=x` … `||` range of package.json admits (the forms it uses). */
function peerMajors(range: string): number[] {
  return range.split('||').map((part) => Number(/(\d+)/.exec(part)?.[1]));
}

/** Whether a Deno npm specifier's version admits `major`. */
function admits(specifier: string, major: number): boolean {
  const version = specifier.slice(specifier.lastIndexOf('@') + 1);
  if (version === '*') return true;
  const exact = /^[\^~]?(\d+)/.exec(version);
  return exact !== null && Number(exact[1]) === major;
}

describe('deno.json', () => {
  for (const framework of ['react', 'vue']) {
    it(`maps ${framework} to a specifier that admits every major of its peer range`, () => {
      const specifier = deno.imports[framework]!;
      expect(specifier.startsWith(`npm:${framework}@`)).toBe(true);
      for (const major of peerMajors(pkg.peerDependencies[framework]!)) expect(admits(specifier, major), `${specifier} admits ${framework} ${major}`).toBe(true);
    });
  }
});
