/** The page's tools for argstream: each `write_file` call of the transport's snapshot is typed by this schema. */
import { defineTools } from 'argstream';
// `import * as z` (zod 4's own form): the bundle keeps only what is used.
import * as z from 'zod';

export const tools = defineTools({
  write_file: z.object({ path: z.string(), content: z.string() }),
});

export type Tools = typeof tools;
