/**
 * An assistant-ui page on an AG-UI agent, written as assistant-ui's AG-UI docs show one: an
 * `HttpAgent` from `@ag-ui/client`, `useAgUiRuntime` from `@assistant-ui/react-ag-ui`,
 * `AssistantRuntimeProvider`, and a thread built from assistant-ui's primitives (messages with their
 * text, reasoning and tool-call parts, the error of a failed run, a composer). Nothing of
 * argstream is in it: test/relay/ag-ui-assistant-ui.test.ts bundles it with esbuild and serves it
 * in front of an argstream AG-UI server (`fromResponse` → `AgUiEncoder`).
 *
 * The agent's URL is the page's `?agent=` parameter. The test types through the runtime's composer
 * (`argstreamCompose`), presses Send as a user would, and reads the thread's messages as
 * assistant-ui holds them (`argstreamMessages`).
 */
import { HttpAgent } from '@ag-ui/client';
import {
  AssistantRuntimeProvider,
  ComposerPrimitive,
  ErrorPrimitive,
  MessagePrimitive,
  ThreadPrimitive,
  type AssistantRuntime,
  type ReasoningMessagePartComponent,
  type TextMessagePartComponent,
  type ToolCallMessagePartComponent,
} from '@assistant-ui/react';
import { useAgUiRuntime } from '@assistant-ui/react-ag-ui';
import { StrictMode, useEffect, useMemo, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';

declare global {
  interface Window {
    /** Put `text` in the thread's composer (the test then presses Send). */
    argstreamCompose?: (text: string) => void;
    /** The thread's messages as assistant-ui holds them, as JSON. */
    argstreamMessages?: () => string;
  }
}

const Text: TextMessagePartComponent = ({ text }) => <p className="text">{text}</p>;

const Reasoning: ReasoningMessagePartComponent = ({ text }) => <blockquote className="reasoning">{text}</blockquote>;

const ToolCall: ToolCallMessagePartComponent = ({ toolName, toolCallId, argsText, status }) => (
  <article className="call" data-tool={toolName} data-id={toolCallId} data-status={status.type}>
    <h3>{toolName}</h3>
    <pre className="args">{argsText}</pre>
  </article>
);

function Thread(): ReactNode {
  return (
    <ThreadPrimitive.Viewport className="thread">
      <ThreadPrimitive.Messages>
        {({ message }) => (
          <MessagePrimitive.Root className="message" data-role={message.role} data-status={message.status?.type ?? 'none'}>
            <MessagePrimitive.Parts components={{ Text, Reasoning, tools: { Fallback: ToolCall } }} />
            <MessagePrimitive.Error>
              <ErrorPrimitive.Root className="error" role="alert">
                <ErrorPrimitive.Message />
              </ErrorPrimitive.Root>
            </MessagePrimitive.Error>
          </MessagePrimitive.Root>
        )}
      </ThreadPrimitive.Messages>
      <ComposerPrimitive.Root id="composer">
        <ComposerPrimitive.Input placeholder="Ask the agent" />
        <ComposerPrimitive.Send id="send">Send</ComposerPrimitive.Send>
      </ComposerPrimitive.Root>
    </ThreadPrimitive.Viewport>
  );
}

/** What the test reads: the runtime's own thread and composer. */
function useTestHooks(runtime: AssistantRuntime): void {
  useEffect(() => {
    window.argstreamCompose = (text) => runtime.thread.composer.setText(text);
    window.argstreamMessages = () => JSON.stringify(runtime.thread.getState().messages);
  }, [runtime]);
}

function App({ url }: { url: string }): ReactNode {
  const agent = useMemo(() => new HttpAgent({ url }), [url]);
  const runtime = useAgUiRuntime({ agent, showThinking: true });
  useTestHooks(runtime);
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <Thread />
    </AssistantRuntimeProvider>
  );
}

const url = new URL(location.href).searchParams.get('agent') ?? '/agent';
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App url={url} />
  </StrictMode>,
);
