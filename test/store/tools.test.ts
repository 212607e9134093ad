/**
 * Typed tools (issue 21 §1) with the three Standard Schema libraries users pick — zod 4, valibot
 * and arktype: the types (checked by `npm run typecheck`: `expectTypeOf` and `@ts-expect-error`
 * fail the compile when they do not hold) and the runtime (a complete call's input is the schema's
 * output, an invalid one is `invalid` with the schema's issues).
 */
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  defineTools,
  TurnStore,
  type DeepReadonly,
  type JsonValue,
  type PartialInput,
  type ReadonlyJsonValue,
  type PipelineEvent,
  type StandardSchemaIssue,
  type ToolCallError,
  type ToolCallSnapshot,
  type TurnSnapshot,
  type UnknownToolName,
} from '../../src/index.ts';
import { streamOf } from '../helpers.ts';

const zodTools = defineTools({
  write_file: z.object({ path: z.string(), content: z.string(), mode: z.enum(['create', 'overwrite']).default('create') }),
  get_weather: z.object({ city: z.string(), days: z.number().int().optional() }),
});
const valibotTools = defineTools({
  write_file: v.object({ path: v.string(), content: v.string(), mode: v.optional(v.picklist(['create', 'overwrite']), 'create') }),
  get_weather: v.object({ city: v.string(), days: v.optional(v.number()) }),
});
const filesTools = defineTools({
  write_files: z.object({ files: z.array(z.object({ path: z.string(), content: z.string() })) }),
});
const arktypeTools = defineTools({
  write_file: type({ path: 'string', content: 'string', 'mode?': "'create' | 'overwrite'" }),
  get_weather: type({ city: 'string', 'days?': 'number' }),
});

describe('typed tools: the types', () => {
  it('PartialInput: objects may lack members, arrays be shorter, strings be prefixes (so any string), numbers whole', () => {
    type Input = { path: string; tags: Array<{ name: 'a' | 'b'; weight: number }>; nested: { flag: boolean; n: null } };
    expectTypeOf<PartialInput<Input>>().toEqualTypeOf<{
      readonly path?: string;
      readonly tags?: ReadonlyArray<{ readonly name?: string; readonly weight?: number }>;
      readonly nested?: { readonly flag?: boolean; readonly n?: null };
    }>();
    expectTypeOf<PartialInput<42>>().toEqualTypeOf<42>();
  });

  it('DeepReadonly: every member and element readonly at every depth; functions, dates, maps and sets kept usable', () => {
    type Output = { path: string; files: Array<{ name: string; lines: string[] }>; at: Date; seen: Map<string, { n: number }>; tags: Set<string>; format: (x: number) => string };
    expectTypeOf<DeepReadonly<Output>>().toEqualTypeOf<{
      readonly path: string;
      readonly files: ReadonlyArray<{ readonly name: string; readonly lines: readonly string[] }>;
      readonly at: Date;
      readonly seen: ReadonlyMap<string, { readonly n: number }>;
      readonly tags: ReadonlySet<string>;
      readonly format: (x: number) => string;
    }>();
    expectTypeOf<DeepReadonly<[string, { a: number }]>>().toEqualTypeOf<readonly [string, { readonly a: number }]>();
    // A schema without types gives `unknown`, kept; plain JSON is readonly JSON.
    expectTypeOf<DeepReadonly<unknown>>().toEqualTypeOf<unknown>();
    expectTypeOf<DeepReadonly<JsonValue>>().toEqualTypeOf<ReadonlyJsonValue>();
    expectTypeOf<DeepReadonly<{ data: JsonValue }>>().toEqualTypeOf<{ readonly data: ReadonlyJsonValue }>();
  });

  it("a call's input, partial or final, typed or not, cannot be written to: its objects are shared with other snapshots", () => {
    function write(typed: TurnSnapshot<typeof zodTools>, untyped: TurnSnapshot, files: TurnSnapshot<typeof filesTools>): void {
      for (const call of typed.calls) {
        if (call.toolName !== 'write_file') continue;
        // @ts-expect-error -- the partial input is readonly
        if (call.status === 'streaming') call.input.path = '/etc/passwd';
        // @ts-expect-error -- the final input (the schema's output) is readonly
        if (call.status === 'complete') call.input.path = '/etc/passwd';
        // @ts-expect-error -- what an invalid call sent is readonly
        if (call.status === 'invalid') call.input.content = '';
        // @ts-expect-error -- what a failed call had is readonly
        if (call.status === 'failed') call.input.mode = 'create';
      }
      for (const call of files.calls) {
        if (call.toolName !== 'write_files') continue;
        // @ts-expect-error -- arrays in the partial input are readonly
        call.input.files?.push({ path: 'x' });
        // @ts-expect-error -- and the objects in them
        if (call.input.files?.[0] !== undefined) call.input.files[0].path = 'x';
        if (call.status === 'complete') {
          // @ts-expect-error -- arrays in the final input too
          call.input.files.pop();
          // @ts-expect-error -- and the objects in them
          call.input.files[0]!.content = 'x';
        }
      }
      for (const call of untyped.calls) {
        const input = call.input;
        if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
          // @ts-expect-error -- an untyped input is readonly JSON
          input['x'] = 1;
        }
      }
    }
    void write;
  });

  it('a call narrows by its toolName: the input is typed, partial while streaming, the output once complete', () => {
    function render(snapshot: TurnSnapshot<typeof zodTools>): void {
      for (const call of snapshot.calls) {
        if (call.toolName === 'write_file') {
          expectTypeOf(call.input.path).toEqualTypeOf<string | undefined>();
          if (call.status === 'complete') {
            expectTypeOf(call.input).toEqualTypeOf<{ readonly path: string; readonly content: string; readonly mode: 'create' | 'overwrite' }>();
          }
          if (call.status === 'streaming') expectTypeOf(call.input.mode).toEqualTypeOf<string | undefined>();
          if (call.status === 'invalid') expectTypeOf(call.issues).toEqualTypeOf<readonly StandardSchemaIssue[]>();
          if (call.status === 'failed') expectTypeOf(call.error).toEqualTypeOf<ToolCallError>();
          // @ts-expect-error -- write_file has no `city`
          void call.input.city;
        } else if (call.toolName === 'get_weather') {
          expectTypeOf(call.input.city).toEqualTypeOf<string | undefined>();
          if (call.status === 'complete') expectTypeOf(call.input.days).toEqualTypeOf<number | undefined>();
        } else {
          // A tool the store was not told about: untyped, its name none of the tools'.
          expectTypeOf(call.toolName).toEqualTypeOf<UnknownToolName>();
          const name: string = call.toolName; // still a string to show
          void name;
          expectTypeOf(call.input).toEqualTypeOf<ReadonlyJsonValue>();
        }
      }
    }
    void render;
  });

  it('comparing with a name that is not a tool is a type error; without tools every call is untyped, its name a string', () => {
    function check(withTools: ToolCallSnapshot<typeof zodTools>, without: ToolCallSnapshot): void {
      // @ts-expect-error -- 'search' is not one of the tools: add it to defineTools
      if (withTools.toolName === 'search') return;
      expectTypeOf(without.toolName).toEqualTypeOf<string>();
      expectTypeOf(without.input).toEqualTypeOf<ReadonlyJsonValue>();
      if (without.toolName === 'search') expectTypeOf(without.input).toEqualTypeOf<ReadonlyJsonValue>();
    }
    void check;
  });

  it('valibot and arktype type their calls the same way', () => {
    function render(a: TurnSnapshot<typeof valibotTools>, b: TurnSnapshot<typeof arktypeTools>): void {
      for (const call of a.calls) {
        if (call.toolName === 'write_file' && call.status === 'complete') expectTypeOf(call.input.mode).toEqualTypeOf<'create' | 'overwrite'>();
        if (call.toolName === 'get_weather') expectTypeOf(call.input.city).toEqualTypeOf<string | undefined>();
      }
      for (const call of b.calls) {
        if (call.toolName === 'write_file' && call.status === 'complete') expectTypeOf(call.input.mode).toEqualTypeOf<'create' | 'overwrite' | undefined>();
        if (call.toolName === 'get_weather') expectTypeOf(call.input.city).toEqualTypeOf<string | undefined>();
      }
    }
    void render;
  });

  it('a readonly input can still be read and passed where a readonly value is expected', () => {
    function show(file: { readonly path?: string; readonly content?: string }): string {
      return `${file.path ?? ''}${file.content ?? ''}`;
    }
    function render(snapshot: TurnSnapshot<typeof zodTools>): void {
      for (const call of snapshot.calls) if (call.toolName === 'write_file') show(call.input);
    }
    void render;
  });

  it('a store is typed by its tools', () => {
    const store = new TurnStore({ tools: zodTools });
    expectTypeOf(store.getSnapshot()).toEqualTypeOf<TurnSnapshot<typeof zodTools>>();
  });
});

/** One call of `name` with `args` cut in three, then a second call of an unknown tool. */
function turn(name: string, args: string): PipelineEvent[] {
  const third = Math.ceil(args.length / 3);
  return [
    { type: 'part', index: 0, part: { type: 'tool-call-start', toolCallId: 'call_1', toolName: name } },
    { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: args.slice(0, third) } },
    { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: args.slice(third, 2 * third) } },
    { type: 'part', index: 0, part: { type: 'tool-call-arguments', chunk: args.slice(2 * third) } },
    { type: 'flush', index: 0 },
    { type: 'part', index: 1, part: { type: 'tool-call-start', toolCallId: 'call_2', toolName: 'search' } },
    { type: 'part', index: 1, part: { type: 'tool-call-arguments', chunk: '{"q":"x"}' } },
    { type: 'flush', index: 1 },
    { type: 'finished', reason: 'tool-calls' },
  ];
}

describe('typed tools: the runtime, with each library', () => {
  for (const [library, tools] of [
    ['zod 4', zodTools],
    ['valibot', valibotTools],
  ] as const) {
    it(`${library}: a complete call's input is the schema's output (its default applied); an unknown tool is kept untyped`, async () => {
      const snapshot = await new TurnStore({ tools }).consume(streamOf(turn('write_file', '{"path":"/a.txt","content":"hi"}')));
      expect(snapshot.calls.map((call) => [call.toolName, call.status, call.input])).toEqual([
        ['write_file', 'complete', { path: '/a.txt', content: 'hi', mode: 'create' }],
        ['search', 'complete', { q: 'x' }],
      ]);
    });

    it(`${library}: an invalid call is 'invalid' with the schema's issues and the input the model sent`, async () => {
      const snapshot = await new TurnStore({ tools }).consume(streamOf(turn('get_weather', '{"city":42}')));
      const call = snapshot.calls[0]!;
      expect(call.status).toBe('invalid');
      expect(call.input).toEqual({ city: 42 });
      expect(call.status === 'invalid' && call.issues.length).toBeGreaterThan(0);
      expect(call.status === 'invalid' && call.issues[0]!.path?.map((step) => (typeof step === 'object' ? step.key : step))).toEqual(['city']);
    });
  }

  it("a complete call's `arguments` are the model's own, members the schema drops and defaults it adds included (zod strips unknown keys)", async () => {
    const snapshot = await new TurnStore({ tools: zodTools }).consume(streamOf(turn('write_file', '{"path":"/a.txt","content":"hi","encoding":"utf8"}')));
    const [typed, untyped] = snapshot.calls;
    expect(typed).toMatchObject({ status: 'complete', input: { path: '/a.txt', content: 'hi', mode: 'create' }, arguments: { path: '/a.txt', content: 'hi', encoding: 'utf8' } });
    expect(typed?.input).not.toHaveProperty('encoding');
    expect(typed?.status === 'complete' && typed.arguments).not.toHaveProperty('mode');
    // Without a schema nothing transforms: the same object.
    expect(untyped?.status === 'complete' && untyped.arguments).toBe(untyped?.input);
    // Only a complete call has them: the others' input is already what the model sent.
    const invalid = await new TurnStore({ tools: zodTools }).consume(streamOf(turn('get_weather', '{"city":42}')));
    expect(invalid.calls[0]).not.toHaveProperty('arguments');
    if (typed?.toolName === 'write_file' && typed.status === 'complete') {
      expectTypeOf(typed.arguments).toEqualTypeOf<{ readonly path: string; readonly content: string; readonly mode?: 'create' | 'overwrite' | undefined }>();
    }
  });

  it("arktype: a complete call's input is the schema's output; an invalid one has its issues", async () => {
    const good = await new TurnStore({ tools: arktypeTools }).consume(streamOf(turn('write_file', '{"path":"/a","content":"x","mode":"overwrite"}')));
    expect(good.calls[0]).toMatchObject({ status: 'complete', input: { path: '/a', content: 'x', mode: 'overwrite' } });
    const bad = await new TurnStore({ tools: arktypeTools }).consume(streamOf(turn('write_file', '{"path":"/a","content":"x","mode":"append"}')));
    expect(bad.calls[0]).toMatchObject({ status: 'invalid', input: { path: '/a', content: 'x', mode: 'append' } });
    expect(bad.calls[0]?.status === 'invalid' && bad.calls[0].issues[0]?.message).toMatch(/mode/);
  });

  it('while a call streams its input is partial: the path first, then a prefix of the content', () => {
    const store = new TurnStore({ tools: zodTools, schedule: 'sync' });
    const seen: unknown[] = [];
    store.subscribe(() => {
      const call = store.getSnapshot().calls[0];
      if (call?.toolName === 'write_file' && call.status === 'streaming') seen.push(call.input);
    });
    for (const event of turn('write_file', '{"path":"/a.txt","content":"hello world"}').slice(0, 4)) store.push(event);
    // Cut as `{"path":"/a.tx` · `t","content":"` · `hello world"}`: a prefix of the path, then the path and an empty content, then the content.
    expect(seen).toEqual([{}, { path: '/a.tx' }, { path: '/a.txt', content: '' }, { path: '/a.txt', content: 'hello world' }]);
  });
});
