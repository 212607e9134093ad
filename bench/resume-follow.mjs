#!/usr/bin/env node
// `node bench/resume-follow.mjs [--cluster] [--streams N]`: what N readers joining their streams'
// live tails at once cost a RedisEventLog (bench/resume/follow.ts), on one redis-server or on a
// Redis Cluster of three masters with a replica each. Bundles the TypeScript (and argstream from
// `src/`) with esbuild into node_modules/.cache, then runs it. Needs redis-server.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'node_modules', '.cache', 'argstream-bench', `resume-follow-${process.pid}.mjs`);
await build({ absWorkingDir: root, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning', entryPoints: [join(root, 'bench', 'resume', 'follow.ts')], outfile: out });
const child = spawnSync(process.execPath, [out, ...process.argv.slice(2)], { stdio: 'inherit' });
rmSync(out, { force: true });
process.exit(child.status ?? 1);
