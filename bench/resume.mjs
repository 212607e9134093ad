#!/usr/bin/env node
// `npm run bench:resume`: the resume load and fault test (bench/resume/main.ts): two relay
// processes sharing one redis-server, a paced provider replaying recorded and scripted turns,
// 1,000 pages reading with readRelay at once, cut mid-stream, reloading, pressing stop or losing
// their network for a while; one relay killed mid-run. Bundles the TypeScript (and argstream from
// `src/`) with esbuild into node_modules/.cache, then runs it. Needs redis-server (`apt-get
// install redis-server`). Options (bench/README.md): --clients N, --pace ms, --spread ms,
// --kill-at ms, --lease ms, --recorded share, --timeout ms; --cluster (a Redis Cluster of three
// masters with a replica each, a master killed at --master-kill-at ms and started again
// --master-down ms later). Its last line: `resume: N/M exact,
// D duplicates, G gaps, L/K producer-lost reported, …`; it exits 1 unless every check holds.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = join(root, 'node_modules', '.cache', 'argstream-bench');
const main = join(dir, `resume-${process.pid}.mjs`);
const relay = join(dir, `resume-relay-${process.pid}.mjs`);
const provider = join(dir, `resume-provider-${process.pid}.mjs`);

const common = { absWorkingDir: root, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' };
await Promise.all([
  build({ ...common, entryPoints: [join(root, 'bench', 'resume', 'main.ts')], outfile: main }),
  build({ ...common, entryPoints: [join(root, 'bench', 'resume', 'relay.ts')], outfile: relay }),
  build({ ...common, entryPoints: [join(root, 'bench', 'resume', 'provider.ts')], outfile: provider }),
]);

const child = spawnSync(process.execPath, [main, ...process.argv.slice(2)], { stdio: 'inherit', env: { ...process.env, ARGSTREAM_RESUME_RELAY: relay, ARGSTREAM_RESUME_PROVIDER: provider, ARGSTREAM_ROOT: root } });
rmSync(main, { force: true });
rmSync(relay, { force: true });
rmSync(provider, { force: true });
process.exit(child.status ?? 1);
