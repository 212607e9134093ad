/**
 * Bundles the portable suite with src/ for each runtime: one self-contained file per entry, built
 * for the browser platform (so a `node:` import anywhere in src/ fails the build), with the
 * fixtures embedded by a plugin.
 */
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const FIXTURES_MODULE = 'argstream-portable:fixtures';

/** The provider recordings the portable suite reads (paths under test/fixtures/providers/). */
export const RECORDING_FILES = [
  'anthropic/text-then-2-parallel-tool-use.sse',
  'anthropic/server-tool-use-code-execution-escapes-emoji.sse',
  'anthropic/thinking-signature-then-tool-use-no-args.sse',
  'anthropic/tool-use-truncated-max-tokens.sse',
  'openai-chat/parallel-2-tool-calls.sse',
  'openai-chat/single-tool-call.sse',
  'openai-chat/refusal.sse',
  'openai-responses/web-search-call-then-message-annotations.sse',
  'ag-ui/anthropic-text-then-2-parallel-tool-use.sse',
  'ag-ui/openai-chat-parallel-2-tool-calls-chunks.sse',
  // LangChain.js objects, one a line (JSON lines): read as objects, no wire format.
  'langchain/anthropic-text-then-2-parallel-tool-use.stream-v0.jsonl',
  'langchain/anthropic-server-tool-use-code-execution-escapes-emoji.events-v1.jsonl',
  'langchain/anthropic-thinking-signature-then-tool-use-no-args.protocol.jsonl',
  'langchain/openai-chat-parallel-2-tool-calls.messages-v0.jsonl',
  'langchain/openai-compatible-qwen-dashscope-empty-string-ids.stream-v1.jsonl',
  'langchain/openai-responses-reasoning-summary-then-function-call.graph-protocol.jsonl',
  'gemini-interactions/constructed-thought-text-function-call-arguments-delta.sse',
  'gemini-interactions/constructed-code-execution-then-text.sse',
];

function base64(path: string): string {
  return readFileSync(path).toString('base64');
}

/** Writes the fixtures module: JSONTestSuite and the recordings, as base64 strings. */
const fixturesPlugin: Plugin = {
  name: 'argstream-portable-fixtures',
  setup(builder) {
    builder.onResolve({ filter: /^argstream-portable:fixtures$/ }, (args) => ({ path: args.path, namespace: 'argstream-portable' }));
    builder.onLoad({ filter: /.*/, namespace: 'argstream-portable' }, () => {
      const dir = join(FIXTURES, 'jsontestsuite/test_parsing');
      const names = readdirSync(dir).filter((name) => name.endsWith('.json')).sort();
      const suite = names.map((name) => [name, base64(join(dir, name))]);
      const recordings = Object.fromEntries(RECORDING_FILES.map((file) => [file, base64(join(FIXTURES, 'providers', file))]));
      return {
        contents: `export const jsonTestSuite = ${JSON.stringify(suite)};\nexport const recordings = ${JSON.stringify(recordings)};\n`,
        loader: 'js',
        watchFiles: [dir, ...RECORDING_FILES.map((file) => join(FIXTURES, 'providers', file))],
      };
    });
  },
};

/** The files one build writes. */
export interface Bundles {
  /** ESM script that runs the checks and prints the report (Node, Deno, Bun). */
  readonly main: string;
  /** ESM module worker for workerd. */
  readonly worker: string;
  /** Classic script with a `fetch` listener for edge-runtime. */
  readonly edge: string;
  /** ESM module script for a browser page: Chromium, Firefox and WebKit load the same one. */
  readonly page: string;
  /** The suite as a module (`runChecks`, `checkNames`, `formatReport`), for the tests to import. */
  readonly suite: string;
}

/** Build every bundle into `outDir`; resolves to their paths. */
export async function buildBundles(outDir: string): Promise<Bundles> {
  const common: BuildOptions = {
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    plugins: [fixturesPlugin],
    logLevel: 'silent',
    legalComments: 'none',
    sourcemap: false,
  };
  const bundles: Bundles = {
    main: join(outDir, 'main.mjs'),
    worker: join(outDir, 'worker.mjs'),
    edge: join(outDir, 'edge.js'),
    page: join(outDir, 'page.mjs'),
    suite: join(outDir, 'suite.mjs'),
  };
  // The script and the page are split as a user's bundler splits them: what src/ loads with a
  // dynamic `import()` (the providers at entry points of their own, read by name) is a chunk of its
  // own, which the runtime loads when the suite reads one (`page-chunks/`: the page's server serves
  // them). The worker and the edge script are one file each (workerd's config embeds one module;
  // edge-runtime runs a classic script), so there the import resolves inside the bundle.
  const split: BuildOptions = { ...common, format: 'esm', splitting: true, outdir: outDir, entryNames: '[name]', outExtension: { '.js': '.mjs' } };
  await Promise.all([
    build({ ...split, entryPoints: [join(HERE, 'main.ts')], chunkNames: 'main-chunks/[name]-[hash]' }),
    build({ ...common, entryPoints: [join(HERE, 'workerd/worker.ts')], format: 'esm', outfile: bundles.worker }),
    build({ ...common, entryPoints: [join(HERE, 'edge-runtime/handler.ts')], format: 'iife', outfile: bundles.edge }),
    build({ ...split, entryPoints: [join(HERE, 'chromium/page.ts')], chunkNames: 'page-chunks/[name]-[hash]' }),
    build({ ...common, entryPoints: [join(HERE, 'portable.ts')], format: 'esm', outfile: bundles.suite }),
  ]);
  return bundles;
}
