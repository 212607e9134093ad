/**
 * Entry of the command-line bundle (Node, Deno, Bun): run the portable checks, print the report,
 * exit code 1 when a check failed. `globalThis.process`/`Deno` are looked up, not imported, so
 * the bundle stays free of runtime-specific imports.
 */
import { formatReport, runChecks } from './portable.ts';

const report = await runChecks();
console.log(formatReport(report));
if (report.failed > 0) {
  const g = globalThis as Record<string, any>;
  if (g['Deno'] !== undefined) g['Deno'].exit(1);
  else if (g['process'] !== undefined) g['process'].exitCode = 1;
}
