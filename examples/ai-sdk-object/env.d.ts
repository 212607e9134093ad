/** The major of the `ai` package the page is bundled with (serve.mjs defines it: 6 or 7). */
declare const __RECIPE_AI_MAJOR__: 6 | 7;
