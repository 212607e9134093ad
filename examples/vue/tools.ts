/** The page's tools: each call of `write_file` is typed by this schema in the snapshot. */
import { defineTools } from 'argstream';
import { z } from 'zod';

export const tools = defineTools({
  write_file: z.object({ path: z.string(), content: z.string() }),
});

export type Tools = typeof tools;
