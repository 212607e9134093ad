// Run by `npm test` (package.json "pretest"), or by hand: `node test/frameworks/install.mjs`.
//
// Framework versions the root package cannot install beside its own (npm allows one `react` at the
// root: React 19 there, React 18 here) are each a small package of their own in a folder of
// test/frameworks/ (react18/). test/examples/frameworks.test.ts bundles the examples against them.
// Each is installed when needed (test/install-folder.mjs says how, and what happens offline).
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installFolder } from '../install-folder.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
for (const entry of readdirSync(HERE, { withFileTypes: true })) {
  const dir = join(HERE, entry.name);
  if (entry.isDirectory() && existsSync(join(dir, 'package-lock.json'))) installFolder(dir, `test/frameworks/${entry.name}`, entry.name);
}
