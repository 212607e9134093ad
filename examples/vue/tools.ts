/** The page's tools: each call of `write_file` is typed by this schema in the snapshot. */
import { defineTools } from 'argstream';
// `import * as z` (zod 4's own form) lets the bundler leave out what is not used: 85 KB of zod
// minified instead of 454 KB with `import { z }`.
import * as z from 'zod';

export const tools = defineTools({
  write_file: z.object({ path: z.string(), content: z.string() }),
});

export type Tools = typeof tools;
