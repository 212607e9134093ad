/**
 * The fixtures the portable suite needs, embedded at bundle time by `build.ts` (an esbuild
 * plugin reads test/fixtures/ and writes them into the bundle as base64), so the suite reads no
 * file at run time and runs where there is no file system (workerd, edge, a browser page).
 */
declare module 'argstream-portable:fixtures' {
  /** Every JSONTestSuite `test_parsing` case: file name and base64 of its bytes. */
  export const jsonTestSuite: ReadonlyArray<readonly [name: string, base64: string]>;
  /** Provider recordings by path under test/fixtures/providers/, as base64 of their bytes. */
  export const recordings: Readonly<Record<string, string>>;
}
