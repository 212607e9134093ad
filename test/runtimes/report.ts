/** The report a runtime hands back, shared by the portable suite and the runners. */

export interface CheckResult {
  readonly name: string;
  /** `known-failing`: failed as recorded in the suite's `knownFailing`; `fixed`: a known failure passed. */
  readonly status: 'pass' | 'fail' | 'known-failing' | 'fixed';
  readonly ms: number;
  readonly error?: string;
}

export interface Report {
  /** What the runtime says it is (`navigator.userAgent`, `Deno.version`, …). */
  readonly runtime: string;
  readonly results: readonly CheckResult[];
  readonly passed: number;
  readonly failed: number;
  /** Wall time as the runtime measures it (workerd only advances its clock on I/O). */
  readonly ms: number;
}

/** Prefix of the one line, printed last, that carries the report as JSON. */
export const REPORT_PREFIX = '# argstream-report ';
