/**
 * The layers of src/, written down once: each may import only the layers below it (the pipeline of
 * DESIGN.md, top to bottom), never one beside or above it. `npm run lint:deps` (part of `npm test`)
 * checks it with dependency-cruiser, together with: no import cycles, no file nothing imports, no
 * `node:` module outside the CLI, and no dependency of the core entry but eventsource-parser.
 * Type-only imports count as imports.
 */

/** Lowest first. Layers in one row are peers: neither imports the other. */
const LAYERS = [
  [{ name: 'base', path: '^src/(types|errors|core)\\.ts$' }], // the vocabulary, the errors, the core shape
  [{ name: 'json', path: '^src/json/' }], // the incremental JSON engine
  [{ name: 'providers', path: '^src/providers/' }], // wire formats → StreamEvents
  [{ name: 'turn', path: '^src/turn/' }], // StreamEvents → progress and conversation events
  [{ name: 'views', path: '^src/views/' }], // the cores of the views: fields, paths, text, deltas, validation, …
  [{ name: 'transforms', path: '^src/transforms/' }], // the TransformStream shells over the cores
  [
    { name: 'sinks', path: '^src/sinks/' }, // collect a turn, rebuild, draw in a terminal
    { name: 'sources', path: '^src/sources/' }, // a fetch Response, an iterable
  ],
  [{ name: 'relay', path: '^src/relay/' }], // SSE / NDJSON to a browser and back, resume
  [
    { name: 'store', path: '^src/store/' }, // typed tools and one snapshot of a turn, for any UI
    { name: 'log', path: '^src/log/' }, // an event log a relay keeps and resumes from (memory, Redis)
  ],
  [
    { name: 'ai-sdk', path: '^src/ai-sdk/' }, // the AI SDK's UI message stream: a chat transport, an encoder
    { name: 'mcp-apps', path: '^src/mcp-apps/' }, // MCP Apps: a tool call's input as the notifications a host sends its view
  ],
  [
    { name: 'entry', path: '^src/index\\.ts$' }, // the package's main entry point
    { name: 'bindings', path: '^src/bindings/' }, // argstream/react, argstream/vue, argstream/svelte: one thin file each
    { name: 'cli', path: '^src/cli/' }, // the `argstream` command (Node)
  ],
];

const ALL = LAYERS.flat();

/** One rule per layer: what it may not import (every layer beside or above it). */
const layerRules = LAYERS.flatMap((row, rank) =>
  row.map((layer) => {
    const below = LAYERS.slice(0, rank).flat().map((other) => other.name);
    const forbidden = ALL.filter((other) => other !== layer && !below.includes(other.name));
    return {
      name: `layer-${layer.name}`,
      comment: `${layer.name} may import only ${below.length === 0 ? 'its own files' : below.join(', ')}`,
      severity: 'error',
      from: { path: layer.path },
      to: { path: forbidden.map((other) => other.path) },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'in-a-layer',
      comment: 'every file of src/ belongs to a layer: add it to LAYERS in .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: ALL.map((layer) => layer.path) },
    },
    {
      name: 'no-circular',
      comment: 'no import cycles',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-orphans',
      comment: 'a file of src/ that nothing imports and that imports nothing is dead',
      severity: 'error',
      from: { orphan: true, path: '^src/' },
      to: {},
    },
    {
      name: 'reachable-from-an-entry',
      comment: 'every file of src/ is reached from an entry point (src/index.ts, src/bindings/*) or from the CLI (src/cli/main.ts)',
      severity: 'error',
      from: { path: '^src/(index\\.ts|cli/main\\.ts|bindings/.+\\.ts)$' },
      to: { path: '^src/', pathNot: '^src/(index\\.ts|cli/main\\.ts|bindings/.+\\.ts)$', reachable: false },
    },
    {
      name: 'node-only-in-cli',
      comment: 'src/ uses web-platform APIs only (DESIGN property 6); the CLI is the one Node program',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'core-entry-dependencies',
      comment: 'what src/index.ts reaches depends on eventsource-parser and on nothing else outside src/',
      severity: 'error',
      from: { path: '^src/index\\.ts$' },
      to: { reachable: true, pathNot: ['^src/', 'node_modules/eventsource-parser/'] },
    },
    {
      name: 'no-dev-dependencies',
      comment: 'src/ ships: it may not import a devDependency (the CLI may reference the types of Node)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(bindings|ai-sdk)/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['triple-slash-type-reference'] },
    },
    {
      name: 'bindings-import-their-framework',
      comment: 'a binding imports argstream and its own framework (an optional peer dependency), nothing else outside src/',
      severity: 'error',
      from: { path: '^src/bindings/(react|vue|svelte)\\.ts$' },
      to: { dependencyTypesNot: ['local'], pathNot: ['node_modules/(react|@types/react|vue|@vue)/'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'every import resolves',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'types', 'default'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
