/**
 * The browser entry, loaded by a page as a module script in Chromium, Firefox and WebKit alike
 * (`browserRunner`, harness.ts): runs the portable checks and leaves the report on
 * `globalThis.argstreamReport` (and the page's text) for the runner to collect.
 */
import { formatReport, runChecks } from '../portable.ts';

const filter = new URL(location.href).searchParams.get('filter') ?? undefined;
const report = await runChecks(filter);
(globalThis as Record<string, unknown>)['argstreamReport'] = report;
const pre = document.createElement('pre');
pre.textContent = formatReport(report);
document.body.append(pre);
