/**
 * Every `ts` snippet of the README, the CHANGELOG and docs/*.md type-checks against the library:
 * each is written to a file of its own under node_modules/.cache/, `argstream` (and Deno's
 * `jsr:@argstream/argstream`, `npm:argstream`) mapped to src/index.ts, the names snippets leave to
 * the reader declared once (`PLACEHOLDERS`), and the whole set checked in one TypeScript program
 * with the library's own strictness. A snippet without an import line continues the one before
 * it on its page ("with the same imports"): it is given the argstream exports it names.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { allSnippets, documents, indexExports, PLACEHOLDERS, ROOT } from './snippets.ts';

const root = fileURLToPath(ROOT);
const dir = fileURLToPath(new URL('node_modules/.cache/argstream-doc-snippets/', ROOT));
const index = `${root}src/index.ts`;

describe('the snippets of README.md, CHANGELOG.md and docs/', () => {
  const snippets = allSnippets();

  it('there are snippets on every page that promises them', () => {
    const pages = new Set(snippets.map((snippet) => snippet.doc));
    for (const page of ['README.md', 'docs/pipeline.md', 'docs/json.md', 'docs/sdks.md', 'docs/relay.md', 'docs/terminal.md', 'docs/providers.md']) expect(pages).toContain(page);
  });

  it('every ts snippet type-checks against src/index.ts', () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const { values, types } = indexExports();
    const files = new Map<string, (typeof snippets)[number]>();
    for (const snippet of snippets) {
      const name = `${dir}${snippet.doc.replace(/[/.]/g, '_')}_${snippet.index}.ts`;
      let code = snippet.code;
      if (!/^import /m.test(code)) {
        const used = (list: string[]) => list.filter((name) => new RegExp(`\\b${name}\\b`).test(code));
        const names = [...used(values), ...used(types).map((name) => `type ${name}`)];
        // After the snippet, so that its lines keep their numbers: imports are hoisted.
        if (names.length > 0) code += `\nimport { ${names.join(', ')} } from 'argstream';`;
      }
      writeFileSync(name, `${code}\nexport {};\n`);
      files.set(name, snippet);
    }
    writeFileSync(`${dir}placeholders.d.ts`, PLACEHOLDERS);
    // A control: a snippet that must not type-check, so that a check that sees nothing fails.
    const control = `${dir}control.ts`;
    writeFileSync(control, "import { fromResponse } from 'argstream';\nfromResponse(response, { provider: 'anthropic' }).pipeThrough(render);\nexport {};\n");

    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: ['node'],
      typeRoots: [`${root}node_modules/@types`],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
      paths: {
        argstream: [index],
        'argstream/ai-sdk/server': [`${root}src/bindings/ai-sdk/server.ts`],
        'argstream/ag-ui': [`${root}src/bindings/ag-ui.ts`],
        'argstream/partial-json': [`${root}src/bindings/partial-json.ts`],
        'argstream/mcp-apps': [`${root}src/bindings/mcp-apps.ts`],
        'argstream/langchain': [`${root}src/bindings/langchain.ts`],
        'argstream/gemini-interactions': [`${root}src/bindings/gemini-interactions.ts`],
        'jsr:@argstream/argstream': [index],
        'npm:argstream': [index],
      },
    };
    const program = ts.createProgram([...files.keys(), `${dir}placeholders.d.ts`, control], options);
    const diagnostics = ts.getPreEmitDiagnostics(program);
    expect(diagnostics.filter((diagnostic) => diagnostic.file?.fileName === control).length, 'the control snippet type-checked: the check is not looking').toBeGreaterThan(0);
    const problems = diagnostics.filter((diagnostic) => diagnostic.file?.fileName !== control).map((diagnostic) => {
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      const file = diagnostic.file?.fileName;
      const snippet = file === undefined ? undefined : files.get(file);
      if (snippet === undefined || diagnostic.start === undefined) return `${file ?? '(program)'}: ${message}`;
      const { line, character } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start);
      return `${snippet.doc}:${snippet.line + line}:${character + 1} (snippet ${snippet.index}): ${message}`;
    });
    expect(problems).toEqual([]);
  }, 120_000);
  // The React snippets (```tsx): type-checked with React's JSX, `argstream/react` mapped to its
  // source; what they render runs in the browsers in test/examples/frameworks.test.ts.
  it('every tsx snippet type-checks against src/ with React', () => {
    const tsxDir = `${dir}tsx/`;
    rmSync(tsxDir, { recursive: true, force: true });
    mkdirSync(tsxDir, { recursive: true });
    const files = new Map<string, string>();
    for (const doc of documents()) {
      const text = readFileSync(new URL(doc, ROOT), 'utf8');
      let index = 0;
      for (const match of text.matchAll(/^( *)```tsx\n([\s\S]*?)^\1```$/gm)) {
        // assistant-ui's page is not the root's: test/relay/ag-ui-assistant-ui.test.ts type-checks it
        // against test/frameworks/assistant-ui's packages.
        if (/from '@assistant-ui\//.test(match[2]!)) continue;
        const name = `${tsxDir}${doc.replace(/[/.]/g, '_')}_${index++}.tsx`;
        writeFileSync(name, `${match[2]}\nexport {};\n`);
        files.set(name, doc);
      }
    }
    expect([...files.values()]).toContain('README.md');
    writeFileSync(
      `${tsxDir}placeholders.d.ts`,
      "import type { ReactNode } from 'react';\nimport type { ToolSchemas } from 'argstream';\ndeclare global {\n  /** The application's own component for a file. */\n  function FileView(props: { path: string | undefined; content: string | undefined; done: boolean }): ReactNode;\n  /** The tools of a snippet before (a page declares them once). */\n  const tools: ToolSchemas;\n}\nexport {};\n",
    );
    const options: ts.CompilerOptions = {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      jsx: ts.JsxEmit.ReactJSX,
      types: [],
      typeRoots: [`${root}node_modules/@types`],
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      allowImportingTsExtensions: true,
      noEmit: true,
      skipLibCheck: true,
      // @ai-sdk/react for ai 5 (the root `ai`, which the transport's types come from here).
      paths: {
        argstream: [index],
        'argstream/react': [`${root}src/bindings/react.ts`],
        'argstream/ai-sdk': [`${root}src/bindings/ai-sdk/index.ts`],
        '@ai-sdk/react': [`${root}node_modules/ai-sdk-react2`],
      },
    };
    const program = ts.createProgram([...files.keys(), `${tsxDir}placeholders.d.ts`], options);
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => `${diagnostic.file?.fileName ?? '(program)'}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    expect(problems).toEqual([]);
  }, 120_000);
});
