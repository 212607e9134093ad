/**
 * The limits table of docs/guarantees.md says what the API reference says: each limit's default
 * there is the `@default` of that option in docs/api/ (generated from the TSDoc), in whatever
 * unit each writes it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API = join(ROOT, 'docs', 'api', 'index');

/** `256`, `64 Mi UTF-16 units`, `16 MiB (16 777 216)`, `268435456 (256 Mi)` → a number. */
function amount(text: string): number {
  const match = /^\s*(\d[\d ]*?)\s*(Ki|Mi|Gi)?B?\b/.exec(text);
  if (match === null) throw new Error(`not an amount: ${text}`);
  const unit = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30 }[match[2] ?? ''] ?? 1;
  return Number((match[1] as string).replace(/ /g, '')) * unit;
}

/** The `@default`s of option `name` on every page of the reference that documents it. */
function apiDefaults(name: string): number[] {
  const defaults: number[] = [];
  for (const folder of ['interfaces', 'classes', 'type-aliases']) {
    for (const page of readdirSync(join(API, folder))) {
      const text = readFileSync(join(API, folder, page), 'utf8');
      const section = text.split(/^### /m).find((part) => part.startsWith(`${name}?`) || part.startsWith(`${name}\n`));
      const value = section === undefined ? undefined : /#### Default\s+```ts\n([^\n]+)\n```/.exec(section)?.[1];
      if (value !== undefined) defaults.push(amount(value));
    }
  }
  return defaults;
}

describe('docs/guarantees.md: the limits', () => {
  const text = readFileSync(join(ROOT, 'docs', 'guarantees.md'), 'utf8');
  const section = text.slice(text.indexOf('## Limits'));
  const rows = [...section.slice(0, section.indexOf('\n## ', 3)).matchAll(/^\| `(\w+)` \| ([^|]+) \|/gm)].map((match) => [match[1] as string, (match[2] as string).trim()] as const);

  it('the table lists the limits', () => {
    expect(rows.map(([name]) => name)).toEqual(expect.arrayContaining(['maxDepth', 'maxStringLength', 'maxLength', 'maxBufferedBytes', 'maxBufferedLength', 'maxEventLength']));
  });

  it.each(rows)('%s: the default is the one of the API reference', (name, written) => {
    const defaults = apiDefaults(name);
    expect(defaults.length, `no @default for ${name} in docs/api/`).toBeGreaterThan(0);
    for (const value of defaults) expect(value).toBe(amount(written));
  });
});
