/** The major of the `ai` package the page is bundled with (serve.mjs defines it: 5 or 7). */
declare const __AI_MAJOR__: 5 | 7;
