/**
 * A chat page in React: Send POSTs the prompt to the relay (the edge function of
 * examples/edge-function), and `useTurn(response, { tools })` turns its event stream into a
 * snapshot that re-renders as the turn streams — the text, then each tool call: a `write_file`
 * call as its path, its content growing, then ✓; any other tool as its name and input.
 */
import { memo, useRef, useState, type FormEvent } from 'react';
import type { ToolCallOf, ToolCallSnapshot, TurnSnapshot } from 'argstream';
import { useTextBlocks, useTurn } from 'argstream/react';
import { tools, type Tools } from './tools.ts';

const endpoint = new URLSearchParams(location.search).get('endpoint') ?? '/api/chat';

export function App() {
  const [response, setResponse] = useState<Response | null>(null);
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<Error | null>(null);
  const request = useRef<AbortController | null>(null);
  // A new response is a new turn, and useTurn cancels the previous one's body; its request is
  // aborted too, since Firefox goes on reading a response whose body was cancelled.
  const turn = useTurn(response, { tools });

  async function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const prompt = String(new FormData(event.currentTarget).get('prompt') ?? '');
    request.current?.abort();
    const controller = new AbortController();
    request.current = controller;
    setResponse(null);
    setFailure(null);
    setSending(true);
    try {
      const next = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt }), signal: controller.signal });
      if (request.current === controller) setResponse(next);
    } catch (error) {
      if (request.current === controller) setFailure(error as Error);
    } finally {
      if (request.current === controller) setSending(false);
    }
  }

  return (
    <main>
      <h1>A tool call, rendered while it streams (React)</h1>
      <form id="ask" onSubmit={send}>
        <textarea name="prompt" defaultValue="Write a word counter in Rust to src/main.rs" />
        <button type="submit" disabled={sending}>
          Send
        </button>
      </form>
      <Turn turn={turn} sending={sending} />
      {failure !== null && (
        <p id="error" role="alert">
          {failure.name}: {failure.message}
        </p>
      )}
    </main>
  );
}

const STATUS = { waiting: 'Ask for a file.', streaming: 'streaming…', done: 'done', error: 'failed' } as const;

function Turn({ turn, sending }: { turn: TurnSnapshot<Tools>; sending: boolean }) {
  return (
    <>
      <p id="status" data-state={turn.status}>
        {sending ? 'sending…' : STATUS[turn.status]}
        {turn.finishReason !== undefined && ` (${turn.finishReason})`}
      </p>
      <p id="message">{turn.text}</p>
      <section id="calls">
        {turn.calls.map((call) => (
          <ToolCall key={call.toolCallId || `#${call.index}`} call={call} />
        ))}
      </section>
      {/* The provider's error (or a cut relay's) is in the snapshot: shown, never swallowed. */}
      {turn.status === 'error' && turn.error !== undefined && (
        <p id="error" role="alert">
          {turn.error.name}: {turn.error.message}
        </p>
      )}
    </>
  );
}

// A call's snapshot keeps its identity while nothing of it changes: memo skips the calls that
// are not streaming.
const ToolCall = memo(function ToolCall({ call }: { call: ToolCallSnapshot<Tools> }) {
  if (call.toolName === 'write_file') return <WriteFile call={call} />;
  return (
    <article className="call" data-tool={call.toolName} data-id={call.toolCallId} data-state={call.status}>
      <h3>
        {call.toolName} {call.status === 'complete' && <span className="check">✓</span>}
      </h3>
      <pre className="input">{JSON.stringify(call.input, null, 2)}</pre>
      {call.status === 'failed' && <Failure error={call.error} />}
    </article>
  );
});

function WriteFile({ call }: { call: ToolCallOf<Tools, 'write_file'> }) {
  // Typed by the schema: `string | undefined` while the call streams, `string` once complete.
  const { path, content } = call.input;
  return (
    <article className="call" data-tool="write_file" data-id={call.toolCallId} data-state={call.status}>
      <h3>
        write_file {call.status === 'complete' && <span className="check">✓</span>}
      </h3>
      {path !== undefined && (
        <p className="path">
          {call.complete.has('/path') ? 'creating ' : ''}
          <code className="path-value" data-complete={call.complete.has('/path') ? '' : undefined}>
            {path}
          </code>
        </p>
      )}
      {content !== undefined && (
        <pre className="content">
          <code className="content-value" data-complete={call.complete.has('/content') ? '' : undefined}>
            <Content text={content} />
          </code>
        </pre>
      )}
      {call.status === 'invalid' && (
        <ul className="issues">
          {call.issues.map((issue, i) => (
            <li key={i}>{issue.message}</li>
          ))}
        </ul>
      )}
      {call.status === 'failed' && <Failure error={call.error} />}
    </article>
  );
}

// The content in blocks of whole lines, each its own element: a frame lays out only the last one
// (one text node of the whole content would be laid out whole at every change).
function Content({ text }: { text: string }) {
  return useTextBlocks(text).map((block, i) => <Block key={i} text={block} />);
}

const Block = memo(function Block({ text }: { text: string }) {
  return <span className="line-block">{text}</span>;
});

function Failure({ error }: { error: Error }) {
  return (
    <p className="call-error">
      {error.name}: {error.message}
    </p>
  );
}
