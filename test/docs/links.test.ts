/**
 * The links of README.md, CHANGELOG.md and docs/*.md lead somewhere: every relative link names a
 * file or folder of the repository (the generated docs/api/ included), and every `#anchor` a
 * heading of the page it points into (GitHub's slugs).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documents } from './snippets.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The page without its fenced code, where `[x](y)` is code, not a link. */
const prose = (markdown: string) => markdown.replace(/^( *)```[\s\S]*?^\1```$/gm, '');

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(file: string): Set<string> {
  const text = prose(readFileSync(file, 'utf8'));
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => slug(match[1] as string)));
}

describe('links in README.md, CHANGELOG.md and docs/', () => {
  it('anchors are GitHub\'s slugs of the headings', () => {
    const anchors = anchorsOf(join(ROOT, 'docs', 'providers.md'));
    expect(anchors).toContain('duplicated-reordered-and-lost-events');
    expect(anchors).toContain('structured-output');
    expect(anchors).not.toContain('structured output');
    expect(anchorsOf(join(ROOT, 'docs', 'cli.md'))).toContain('replay');
  });

  it.each(documents())('%s: every relative link and anchor resolves', (doc) => {
    const text = prose(readFileSync(join(ROOT, doc), 'utf8'));
    const broken: string[] = [];
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] as string;
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const file = path === '' ? join(ROOT, doc) : normalize(join(ROOT, dirname(doc), path));
      if (!file.startsWith(ROOT) || !existsSync(file)) {
        broken.push(`${target}: no such file`);
        continue;
      }
      if (anchor !== undefined && statSync(file).isFile() && file.endsWith('.md') && !anchorsOf(file).has(anchor)) broken.push(`${target}: no such heading`);
    }
    expect(broken).toEqual([]);
  });
});
