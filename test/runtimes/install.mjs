// Run by `npm test` (package.json "pretest"), or by hand: `node test/runtimes/install.mjs`.
//
// The runtimes the portable suite runs on (Node 24, Deno, Bun, workerd, edge-runtime: about
// 530 MB) are the devDependencies of test/runtimes/package.json, not of the root package, so a
// contributor's `npm ci` and `npm start` do without them. This installs them when needed
// (test/install-folder.mjs says how, and what happens offline).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installFolder } from '../install-folder.mjs';

installFolder(dirname(fileURLToPath(import.meta.url)), 'test/runtimes', "the runtime tests' Node 24, Deno, Bun, workerd and edge-runtime (~530 MB)");
