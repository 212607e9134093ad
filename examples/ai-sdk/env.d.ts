/** The major of the `ai` package the page is bundled with (serve.mjs defines it: 5, 6 or 7). */
declare const __AI_MAJOR__: 5 | 6 | 7;
/** The server in front of which the page is (serve.mjs defines it): the AI SDK's own or argstream's. */
declare const __SERVER__: 'ai-sdk' | 'argstream';
