/**
 * A Deno user's module, outside src/, importing src/index.ts — only type-checked
 * (`deno check`, see run.ts), never run. `deno check src/index.ts` in the repository checks src/
 * with tsconfig.json's options (Deno applies a tsconfig.json's compilerOptions to the files its
 * `include` names), but a user module outside `include` is checked with Deno's defaults — no
 * exactOptionalPropertyTypes, no noUncheckedIndexedAccess — and src/ with it, as it is under JSR's
 * defaults. src/ must type-check under both.
 */
import {
  collectTurn,
  type FinishReason,
  type ProviderEventStreamOptions,
  ProviderEventStream,
  type StreamEvent,
  type Turn,
  type Usage,
} from '../../../src/index.ts';

const options: ProviderEventStreamOptions = { provider: 'openai-responses' };

export function turnOf(sse: ReadableStream<string>): Promise<Turn> {
  const events: ReadableStream<StreamEvent> = sse.pipeThrough(new ProviderEventStream(options));
  return collectTurn(events);
}

export function summaryOf(turn: Turn): string {
  const reason: FinishReason | undefined = turn.finishReason;
  const usage: Usage | undefined = turn.usage;
  const tokens: number | undefined = usage?.totalTokens;
  return `${turn.toolCalls.map((call) => call.toolName).join(', ')} (${reason ?? 'cut'}, ${tokens ?? '?'} tokens)`;
}
