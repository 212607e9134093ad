/**
 * The bindings on `ArgstreamChatTransport` given alone — `useTurn(transport)` (React, Vue),
 * `turnStore(transport)` (Svelte) — show the transport's own snapshot: its calls typed by the
 * tools the transport was given (checked by the type-check of the tests: the `@ts-expect-error`
 * lines fail it if the input were untyped), never read, cancelled or ended by the binding.
 */
import { readFileSync } from 'node:fs';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { effectScope } from 'vue';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { useTurn } from '../../src/bindings/react.ts';
import { turnStore } from '../../src/bindings/svelte.ts';
import { useTurn as useVueTurn } from '../../src/bindings/vue.ts';
import { defineTools, type TurnSnapshot } from '../../src/index.ts';
import { readAll } from '../helpers.ts';
import { DIR, eventsOf, SEND, transportOptions } from './transport-helpers.ts';

const tools = defineTools({ write_file: z.object({ path: z.string(), content: z.string() }) });
const EVENTS = eventsOf(readFileSync(new URL('ai5-reasoning-text-write-file.sse', DIR), 'utf8'));
/** After the call's second delta: its path whole, its content begun. */
const CUT = EVENTS.findIndex((event) => event.includes('tool-input-delta')) + 2;
const INPUT = { path: 'src/main.rs', content: 'fn main() {\n    println!("héllo, \\"wörld\\" 🚀");\n}\n' };

/** A transport given `tools`, its snapshot that of a response read up to `upTo` events. */
async function transportRead(upTo: number) {
  const transport = new ArgstreamChatTransport(Object.assign(transportOptions(() => EVENTS.slice(0, upTo).join('')), { tools }));
  await readAll(await transport.sendMessages(SEND));
  return transport;
}

/** What a page shows of the write_file call: typed by the transport's tools, with no `tools` given to the binding. */
function shownCall(turn: TurnSnapshot<typeof tools>): string {
  const call = turn.calls[0];
  if (call?.toolName !== 'write_file') return 'no call';
  const path: string | undefined = call.input.path;
  // @ts-expect-error: the input is the schema's partial input, not unknown
  const wrongPath: number | undefined = call.input.path;
  void wrongPath;
  const content: string | undefined = call.input.content;
  return `${call.status} ${path ?? '?'} ${JSON.stringify(content ?? null)}`;
}

describe('the bindings on ArgstreamChatTransport alone', () => {
  it("`useTurn(transport)` (React) is the transport's snapshot, typed by its tools: mid-call and complete", async () => {
    for (const [upTo, expected] of [
      [CUT, `streaming src/main.rs ${JSON.stringify('fn main() {\n')}`],
      [EVENTS.length, `complete src/main.rs ${JSON.stringify(INPUT.content)}`],
    ] as const) {
      const transport = await transportRead(upTo);
      let seen: unknown;
      function Call() {
        const turn = useTurn(transport);
        seen = turn;
        return createElement('p', null, shownCall(turn));
      }
      expect(renderToString(createElement(Call))).toBe(`<p>${expected.replace(/"/g, '&quot;')}</p>`);
      expect(seen).toBe(transport.getSnapshot());
    }
  });

  it("`useTurn(transport)` (Vue) follows the transport's snapshot, typed by its tools; once its scope stops, it no longer follows, and the transport goes on", async () => {
    let answer = EVENTS.slice(0, CUT).join('');
    const transport = new ArgstreamChatTransport(Object.assign(transportOptions(() => answer), { tools }));
    const scope = effectScope();
    const turn = scope.run(() => useVueTurn(transport))!;
    expect(turn.value).toBe(transport.getSnapshot());
    expect(shownCall(turn.value)).toBe('no call');
    await readAll(await transport.sendMessages(SEND));
    expect(turn.value).toBe(transport.getSnapshot());
    expect(shownCall(turn.value)).toBe(`streaming src/main.rs ${JSON.stringify('fn main() {\n')}`);
    answer = EVENTS.join('');
    await readAll(await transport.sendMessages(SEND));
    expect(shownCall(turn.value)).toBe(`complete src/main.rs ${JSON.stringify(INPUT.content)}`);
    scope.stop();
    const shown = turn.value;
    await readAll(await transport.sendMessages(SEND));
    expect(transport.getSnapshot()).not.toBe(shown);
    expect(turn.value).toBe(shown);
    expect(transport.getSnapshot().status).toBe('done');
  });

  it("`turnStore(transport)` (Svelte) gives the transport's snapshot to its subscribers, typed by its tools, and as it changes", async () => {
    const transport = new ArgstreamChatTransport(Object.assign(transportOptions(() => EVENTS.join('')), { tools }));
    const shown: string[] = [];
    const unsubscribe = turnStore(transport).subscribe((turn) => void shown.push(shownCall(turn)));
    expect(shown).toEqual(['no call']);
    await readAll(await transport.sendMessages(SEND));
    unsubscribe();
    expect(shown.at(-1)).toBe(`complete src/main.rs ${JSON.stringify(INPUT.content)}`);
    expect(shown.some((line) => line.startsWith('streaming src/main.rs'))).toBe(true);
  });
});
