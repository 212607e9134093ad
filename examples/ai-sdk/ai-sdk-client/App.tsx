/**
 * A plain `useChat` page — the AI SDK's own `DefaultChatTransport`, no argstream in the page — in
 * front of an argstream server (server/argstream.ts), which speaks the AI SDK's UI message stream.
 * A call's input is the part's `input` as the AI SDK builds it: while it streams, the AI SDK's
 * parse of the deltas so far; from `input-available` on, the exact input.
 */
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithToolCalls } from 'ai';
import { ChatView, savedFile } from '../chat-view.tsx';

const transport = new DefaultChatTransport({ api: '/api/chat' });

export function App() {
  const chat = useChat({ transport, sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls });
  // ai 5 names it addToolResult (addToolOutput since 5.0.x), ai 6 and 7 addToolOutput.
  const addOutput = __AI_MAJOR__ === 5 ? chat.addToolResult : chat.addToolOutput;
  return (
    <ChatView
      setup={`ai ${__AI_MAJOR__} · @ai-sdk/react ${__AI_MAJOR__ - 3} · DefaultChatTransport · an argstream server`}
      messages={chat.messages}
      status={chat.status}
      error={chat.error}
      inputOf={(part) => part.input}
      onSend={(text) => void chat.sendMessage({ text })}
      onSave={(toolCallId, input) => void addOutput({ tool: 'write_file', toolCallId, output: savedFile(input) })}
      onResume={() => void chat.resumeStream()}
    />
  );
}
