// @ts-check
/**
 * The React example's server: `npm run build && node examples/react/serve.mjs`, then open
 * http://127.0.0.1:8787/ (see README.md). examples/shared/serve.mjs does the work.
 */
import { serveFromCommandLine } from '../shared/serve.mjs';

await serveFromCommandLine('react');
