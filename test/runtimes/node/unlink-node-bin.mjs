// Run by `npm ci` / `npm install` (package.json "prepare"). The devDependency node@24 ships the
// Node 24 binary that test/runtimes/node/run.ts runs, and npm links it as node_modules/.bin/node,
// which npm scripts and npx put first on PATH: `npm test` would then run everything on Node 24,
// not on the Node the developer (or CI) chose. Remove that link, and only that link; the binary
// stays at node_modules/node/bin/node.
import { lstatSync, readlinkSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const bin = join(process.cwd(), 'node_modules', '.bin');
for (const name of ['node', 'node.cmd', 'node.ps1']) {
  const path = join(bin, name);
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    continue;
  }
  // A symlink into the `node` package, or a Windows shim whose text names it.
  const target = stat.isSymbolicLink() ? readlinkSync(path) : readFileSync(path, 'utf8');
  if (/(^|[\\/])node[\\/]bin[\\/]node\b/.test(target)) {
    rmSync(path);
    console.log(`removed node_modules/.bin/${name} (Node 24 of the runtime tests stays in node_modules/node/bin/)`);
  }
}
