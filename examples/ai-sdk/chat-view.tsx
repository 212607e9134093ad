/**
 * The chat as both pages show it: the messages of `useChat`, each `write_file` call as a file —
 * its path, its content growing, ✓ once its input is complete (`input-available`), a Save button
 * that runs the tool in the page, then its result — a call of any other tool as its name and its
 * input so far as JSON, the chat's status, its error and a Resume button after a cut connection,
 * and the prompt box. Plain React: where a call's input comes from while it streams is the pages'
 * business (`inputOf`), which is all that differs between them.
 */
import { memo, type FormEvent, type ReactNode } from 'react';

/** A `write_file` call's input as the page shows it: the members that have arrived, strings as prefixes. */
export interface FileInput {
  readonly path?: string | undefined;
  readonly content?: string | undefined;
}

/** What the view reads of a part of a UI message (`ai` 5, 6 and 7 write these alike). */
export interface ViewPart {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly state?: string;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly errorText?: string;
}

/** What the view reads of a UI message. */
export interface ViewMessage {
  readonly id: string;
  readonly role: string;
  readonly parts: readonly ViewPart[];
}

export interface ChatViewProps {
  /** What the page is built on, shown under the title. */
  readonly setup: string;
  readonly messages: readonly ViewMessage[];
  /** `useChat`'s status: `submitted`, `streaming`, `ready`, `error`. */
  readonly status: string;
  readonly error: Error | undefined;
  /** A tool part's input so far (a `write_file` call's is a {@link FileInput}). */
  inputOf(part: ViewPart): unknown;
  /** Renders a file's content (default: one text node). */
  readonly Content?: (props: { text: string }) => ReactNode;
  onSend(text: string): void;
  /** The Save button of a call whose input is complete: run the tool, send its result. */
  onSave(toolCallId: string, input: { path: string; content: string }): void;
  /** The Resume button, after the connection was cut: the AI SDK's `resumeStream()`. */
  onResume(): void;
}

export function ChatView(props: ChatViewProps) {
  const { status, error } = props;
  function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    props.onSend(String(new FormData(event.currentTarget).get('prompt') ?? ''));
  }
  return (
    <main>
      <h1>A tool call, rendered while it streams (useChat)</h1>
      <p id="versions">{props.setup}</p>
      <section id="messages">
        {props.messages.map((message) => (
          <article key={message.id} className="message" data-role={message.role} data-id={message.id}>
            {message.parts.map((part, i) => (
              <Part key={part.toolCallId ?? i} part={part} {...props} />
            ))}
          </article>
        ))}
      </section>
      <p id="status" data-status={status}>
        {status}
      </p>
      {error !== undefined && (
        <p id="error" role="alert">
          {error.name}: {error.message}
        </p>
      )}
      {status === 'error' && (
        <button id="resume" type="button" onClick={props.onResume}>
          Resume
        </button>
      )}
      <form id="ask" onSubmit={send}>
        <textarea name="prompt" defaultValue="Write a word counter in Rust to src/main.rs" />
        <button type="submit" disabled={status === 'submitted' || status === 'streaming'}>
          Send
        </button>
      </form>
    </main>
  );
}

function Part({ part, ...props }: { part: ViewPart } & ChatViewProps) {
  if (part.type === 'text') return <p className="text">{part.text}</p>;
  if (part.type === 'tool-write_file' && part.toolCallId !== undefined) {
    return <WriteFile part={part} toolCallId={part.toolCallId} input={props.inputOf(part) as FileInput | undefined} Content={props.Content} onSave={props.onSave} />;
  }
  if (part.type.startsWith('tool-') && part.toolCallId !== undefined) {
    return <ToolCall part={part} toolCallId={part.toolCallId} toolName={part.type.slice('tool-'.length)} input={props.inputOf(part)} />;
  }
  return null;
}

/** A call of another tool (the server declares more than `write_file`): its name, its input so far. */
function ToolCall(props: { part: ViewPart; toolCallId: string; toolName: string; input: unknown }) {
  const { part, toolCallId, toolName, input } = props;
  const state = part.state ?? 'input-streaming';
  return (
    <article className="call" data-tool={toolName} data-id={toolCallId} data-state={state} data-part-input={part.input === undefined ? 'none' : 'some'}>
      <h3>
        {toolName} {state !== 'input-streaming' && <span className="check">✓</span>}
      </h3>
      {input !== undefined && (
        <pre className="input">
          <code className="input-value">{JSON.stringify(input)}</code>
        </pre>
      )}
      {part.errorText !== undefined && <p className="call-error">{part.errorText}</p>}
    </article>
  );
}

const WriteFile = memo(function WriteFile(props: {
  part: ViewPart;
  toolCallId: string;
  input: FileInput | undefined;
  Content: ChatViewProps['Content'];
  onSave: ChatViewProps['onSave'];
}) {
  const { part, toolCallId, input } = props;
  const path = input?.path;
  const content = input?.content;
  const state = part.state ?? 'input-streaming';
  const Content = props.Content ?? PlainContent;
  return (
    // data-part-input: whether the AI SDK's own part has an input (none while ArgstreamChatTransport
    // keeps the deltas from it; the AI SDK's parse of them so far with DefaultChatTransport).
    <article className="call" data-tool="write_file" data-id={toolCallId} data-state={state} data-part-input={part.input === undefined ? 'none' : 'some'}>
      <h3>
        write_file {state !== 'input-streaming' && <span className="check">✓</span>}
      </h3>
      {path !== undefined && (
        <p className="path">
          <code className="path-value" data-complete={state === 'input-streaming' ? undefined : ''}>
            {path}
          </code>
        </p>
      )}
      {content !== undefined && (
        <pre className="content">
          <code className="content-value" data-complete={state === 'input-streaming' ? undefined : ''}>
            <Content text={content} />
          </code>
        </pre>
      )}
      {state === 'input-available' && path !== undefined && content !== undefined && (
        <button className="save" type="button" onClick={() => props.onSave(toolCallId, { path, content })}>
          Save
        </button>
      )}
      {state === 'output-available' && <p className="output">{JSON.stringify(part.output)}</p>}
      {part.errorText !== undefined && <p className="call-error">{part.errorText}</p>}
    </article>
  );
});

function PlainContent({ text }: { text: string }) {
  return text;
}

/** What the Save button sends back as the tool's result. */
export function savedFile(input: { path: string; content: string }): { saved: string; bytes: number } {
  return { saved: input.path, bytes: new TextEncoder().encode(input.content).length };
}
