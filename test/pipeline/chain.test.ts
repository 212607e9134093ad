/**
 * One pipeline: the stages chained in every order a user would write, over every recording,
 * fused (plain `pipeThrough`) and as separate hops (`pipeThrough(stage, {})`), whole and cut at
 * random. Each chain's output must give the same turn as the plain pipeline
 * (`ProviderEventStream` → `collectTurn`), each view in it must rebuild the call's arguments,
 * and the events no stage owns must come out unchanged and in order. Inputs: each recording whole,
 * cut at random, and as SDK event objects.
 */
import { describe, expect, it } from 'vitest';
import {
  ArgumentValidationStream,
  CoalesceStream,
  ConversationEventStream,
  FieldEventStream,
  FragmentAggregator,
  PathUpdateStream,
  ProviderEventStream,
  TaggedToolCallStream,
  ToolCallDeltaStream,
  ToolCallProgressStream,
  ToolCallRebuilder,
  collectTurn,
  type JsonValue,
  type PipelineEvent,
  type ProviderName,
  type StandardSchema,
  type Turn,
} from '../../src/index.ts';
import { randomCuts, readAll, rng, streamOf } from '../helpers.ts';
import type { ManifestRecording } from '../manifest.ts';
import { PROVIDER_OF_DIR, readableRecordings, recordingInput, sdkObjectsOf } from '../providers/event-stream-helpers.ts';

type AnyStage = { readonly writable: WritableStream<never>; readonly readable: ReadableStream<unknown> };

/** A schema that accepts everything (validation must not change the events it passes). */
const anything: StandardSchema = { '~standard': { version: 1, vendor: 'test', validate: (value) => ({ value }) } };

const CHAINS: ReadonlyArray<readonly [string, ReadonlyArray<() => AnyStage>]> = [
  ['progress', [() => new ToolCallProgressStream()]],
  ['conversation', [() => new ConversationEventStream()]],
  ['conversation+progress', [() => new ConversationEventStream({ progress: true })]],
  ['conversation+passthrough', [() => new ConversationEventStream({ passthrough: true })]],
  ['progress → conversation', [() => new ToolCallProgressStream(), () => new ConversationEventStream()]],
  ['progress → fields', [() => new ToolCallProgressStream(), () => new FieldEventStream()]],
  ['fields', [() => new FieldEventStream()]],
  ['progress → path updates', [() => new ToolCallProgressStream(), () => new PathUpdateStream()]],
  ['path updates', [() => new PathUpdateStream()]],
  ['progress → fields(keep) → path updates', [() => new ToolCallProgressStream(), () => new FieldEventStream({ keepProgress: true }), () => new PathUpdateStream()]],
  ['deltas', [() => new ToolCallDeltaStream()]],
  ['deltas → progress → fields', [() => new ToolCallDeltaStream(), () => new ToolCallProgressStream(), () => new FieldEventStream()]],
  ['progress → deltas', [() => new ToolCallProgressStream(), () => new ToolCallDeltaStream()]],
  ['progress → validation', [() => new ToolCallProgressStream(), () => new ArgumentValidationStream({ schema: anything })]],
  ['validation → fields', [() => new ArgumentValidationStream({ schema: anything }), () => new FieldEventStream()]],
  ['progress → coalesce', [() => new ToolCallProgressStream(), () => new CoalesceStream({ maxDelayMs: Infinity }) as AnyStage]],
  ['conversation+progress → fields', [() => new ConversationEventStream({ progress: true }), () => new FieldEventStream()]],
  ['conversation+progress+passthrough → path updates', [() => new ConversationEventStream({ progress: true, passthrough: true }), () => new PathUpdateStream()]],
  ['tagged → progress → fields → coalesce', [() => new TaggedToolCallStream(), () => new ToolCallProgressStream(), () => new FieldEventStream(), () => new CoalesceStream({ maxDelayMs: Infinity }) as AnyStage]],
  ['fields → conversation', [() => new FieldEventStream(), () => new ConversationEventStream()]],
  ['path updates → deltas → conversation+passthrough', [() => new PathUpdateStream(), () => new ToolCallDeltaStream(), () => new ConversationEventStream({ passthrough: true })]],
];

const recordings = readableRecordings();

function chainOf(recording: ManifestRecording, chunks: ReadonlyArray<Uint8Array | object>, stages: ReadonlyArray<() => AnyStage>, fused: boolean) {
  const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
  let stream: ReadableStream<unknown> = streamOf(chunks).pipeThrough(new ProviderEventStream({ provider }));
  for (const make of stages) stream = fused ? stream.pipeThrough(make() as never) : stream.pipeThrough(make() as never, {});
  return stream as ReadableStream<PipelineEvent>;
}

/** The turn without what legitimately differs between runs of the same events. */
function comparable(turn: Turn) {
  return { ...turn, events: turn.events.map((event) => ('error' in event ? { ...event, error: String(event.error) } : event)), failedToolCalls: turn.failedToolCalls.length };
}

/** The events no view owns, with adjacent text joined: what must pass through unchanged and in order. */
function passedThrough(events: readonly PipelineEvent[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    let line: string | undefined;
    if (event.type === 'part' && (event.part.type === 'message' || event.part.type === 'reasoning')) line = `${event.part.type}:${event.index}:${event.part.text}`;
    else if (event.type === 'finished') line = `finished:${event.reason}`;
    if (line === undefined) continue;
    const last = out[out.length - 1];
    const prefix = line.slice(0, line.indexOf(':', line.indexOf(':') + 1) + 1);
    if (last !== undefined && prefix !== 'finished:' && last.startsWith(prefix)) out[out.length - 1] = last + line.slice(prefix.length);
    else out.push(line);
  }
  return out;
}

/**
 * The same per text slot: CoalesceStream owns text pieces, and merges each slot's between two
 * boundaries even when other slots' pieces come between them (several choices streaming at once).
 */
function passedThroughPerSlot(events: readonly PipelineEvent[]): Record<string, string> {
  const slots: Record<string, string> = {};
  for (const line of passedThrough(events)) {
    const prefix = line.slice(0, line.indexOf(':', line.indexOf(':') + 1) + 1);
    slots[prefix] = (slots[prefix] ?? '') + line.slice(prefix.length);
  }
  return slots;
}

/** Per call (by slot), the arguments each view in the output rebuilds. */
function views(events: readonly PipelineEvent[]) {
  const progress = new Map<number, FragmentAggregator>();
  const fields = new Map<number, Map<string, { text: string; string: boolean; ended: boolean }>>();
  const rebuilder = new ToolCallRebuilder();
  const rebuilt = new Map<number, JsonValue | undefined>();
  const deltas = new Map<number, string>();
  const completeDeltas = new Set<number>();
  for (const event of events) {
    if (event.type === 'tool-call-progress') {
      let aggregator = progress.get(event.index);
      if (aggregator === undefined) progress.set(event.index, (aggregator = new FragmentAggregator()));
      aggregator.push(event.fragment);
    } else if (event.type === 'field-start' || event.type === 'field-delta' || event.type === 'field-end') {
      if (event.index === undefined) continue;
      let call = fields.get(event.index);
      if (call === undefined) fields.set(event.index, (call = new Map()));
      if (event.type === 'field-start') call.set(event.key, { text: '', string: false, ended: false });
      const field = call.get(event.key);
      if (field === undefined) throw new Error(`field ${event.key} without field-start`);
      if (event.type === 'field-delta') field.text += event.text;
      if (event.type === 'field-end') Object.assign(field, { string: event.string, ended: true });
    } else if (event.type === 'streaming-tool-call') {
      deltas.set(event.index, (deltas.get(event.index) ?? '') + event.argumentsDelta);
      if (event.isComplete) completeDeltas.add(event.index);
    }
    if (event.type === 'path-update') {
      const call = rebuilder.push(event);
      if (call?.index !== undefined && call.state === 'complete') rebuilt.set(call.index, call.value);
    }
  }
  const fieldValues = new Map<number, JsonValue>();
  for (const [index, call] of fields) {
    const entries = [...call].filter(([, f]) => f.ended);
    if (entries.length !== call.size) continue;
    const value = Object.fromEntries(entries.map(([key, f]) => [key, f.string ? f.text : (JSON.parse(f.text) as JsonValue)]));
    fieldValues.set(index, call.size === 1 && call.has('') ? (value[''] as JsonValue) : value);
  }
  return { progress, fieldValues, rebuilt, deltas, completeDeltas };
}

describe('One pipeline: every chain of stages gives the turn of the plain pipeline', () => {
  for (const [name, stages] of CHAINS) {
    for (const fused of [true, false]) {
      it(`stages chained as ${name} (${fused ? 'fused' : 'separate hops'}) give the plain pipeline's turn, views and pass-through events on every recording`, async () => {
        for (const recording of recordings) {
          const input = recordingInput(recording);
          const cuts = input.length === 1 && input[0] instanceof Uint8Array ? randomCuts(input[0], rng(recording.file.length), 6) : input;
          // Whole, cut at random, and as the objects an official SDK yields.
          for (const chunks of [input, cuts, sdkObjectsOf(recording.file)]) {
            const provider = PROVIDER_OF_DIR[recording.dir] as ProviderName;
            const plainEvents = await readAll(streamOf(chunks).pipeThrough(new ProviderEventStream({ provider })));
            const plain = await collectTurn(streamOf(plainEvents), { isolateErrors: true });
            const events = await readAll(chainOf(recording, chunks, stages, fused));
            const turn = await collectTurn(streamOf(events), { isolateErrors: true });
            const where = `${recording.file} through ${name}`;
            expect(comparable(turn), where).toEqual(comparable(plain));
            if (name.includes('coalesce')) expect(passedThroughPerSlot(events), where).toEqual(passedThroughPerSlot(plainEvents));
            else if (!name.startsWith('conversation') && !name.includes('→ conversation')) {
              expect(passedThrough(events), where).toEqual(passedThrough(plainEvents));
            }
            // Each call the turn completes — the provider-run ones too — is rebuilt by every view the chain has.
            const seen = views(events);
            const calls = turn.events.flatMap((e) => (e.type === 'tool-call' || e.type === 'provider-tool-call' ? [e] : []));
            expect(calls.filter((c) => c.type === 'tool-call'), where).toEqual(turn.toolCalls);
            for (const call of calls) {
              const args = call.arguments;
              if (seen.progress.has(call.index)) expect(seen.progress.get(call.index)?.snapshot(), where).toEqual(args);
              if (seen.fieldValues.has(call.index)) expect(seen.fieldValues.get(call.index), where).toEqual(args);
              if (seen.rebuilt.has(call.index)) expect(seen.rebuilt.get(call.index), where).toEqual(args);
              if (seen.deltas.has(call.index)) {
                const text = seen.deltas.get(call.index) as string;
                expect(text.trim() === '' ? {} : JSON.parse(text), where).toEqual(args);
                expect(seen.completeDeltas.has(call.index), where).toBe(true);
              }
            }
            const viewsExpected = {
              progress: name.includes('progress') && !name.includes('fields') && !name.includes('path') && !name.includes('conversation') ? true : undefined,
              fields: name.includes('fields') ? true : undefined,
              updates: name.includes('path updates') ? true : undefined,
            };
            const withArguments = calls.filter((c) => JSON.stringify(c.arguments) !== '{}');
            for (const call of withArguments) {
              if (viewsExpected.progress) expect(seen.progress.has(call.index), `${where}: progress of ${call.toolCallId}`).toBe(true);
              if (viewsExpected.fields && typeof call.arguments === 'object') expect(seen.fieldValues.has(call.index), `${where}: fields of ${call.toolCallId}`).toBe(true);
              if (viewsExpected.updates) expect(seen.rebuilt.has(call.index), `${where}: updates of ${call.toolCallId}`).toBe(true);
            }
          }
        }
      });
    }
  }
});
