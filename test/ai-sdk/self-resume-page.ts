/**
 * The page of test/ai-sdk/self-resume-browser.test.ts: a `useChat` page built as the README's
 * recipe has it — `ArgstreamChatTransport` and `useTurn`, no reconnect code, never
 * `resumeStream()` — with what it shows left on `window` for the test to read.
 */
import { useChat } from '@ai-sdk/react';
import { createElement, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { ArgstreamChatTransport } from '../../src/ai-sdk/chat-transport.ts';
import { useTurn } from '../../src/bindings/react.ts';

interface PageState {
  /** What the chat shows: its status, error, and its messages' parts (as JSON). */
  chat: { status: string; error: string | null; messages: string };
  /** The snapshot's write_file content so far (`useTurn`). */
  content: string;
  retries: string[];
  send?: () => void;
}

const page = window as unknown as PageState;
page.chat = { status: 'ready', error: null, messages: '[]' };
page.content = '';
page.retries = [];

const transport = new ArgstreamChatTransport({
  api: '/api/chat',
  reconnect: {
    initialDelayMs: 50,
    maxDelayMs: 300,
    onRetry: (attempt, error) => void page.retries.push(`${attempt}: ${String(error)}`),
  },
});

function App() {
  const chat = useChat({ transport });
  const turn = useTurn(transport);
  useEffect(() => {
    page.send = () => void chat.sendMessage({ text: 'write it' });
  });
  page.chat = { status: chat.status, error: chat.error === undefined ? null : `${chat.error.name}: ${chat.error.message}`, messages: JSON.stringify(chat.messages.map((message) => ({ role: message.role, parts: message.parts }))) };
  page.content = (turn.calls[0]?.input as { content?: string } | undefined)?.content ?? '';
  return createElement('p', null, chat.status);
}

createRoot(document.body.appendChild(document.createElement('main'))).render(createElement(App));
