/**
 * A `useChat` page in front of the AI SDK's own server, with argstream's transport:
 * `ArgstreamChatTransport` reads the UI message stream itself, so the tool input deltas never
 * reach the AI SDK's quadratic re-parse. While a call streams, its part in `useChat`'s message is
 * `input-streaming` with no `input` (the AI SDK has not seen a delta); its input so far is in the
 * transport's snapshot, `useTurn(transport)`, typed by the transport's tools (the tool's zod
 * schema). From
 * `input-available` on, the part's own `input` is the exact input, as with any AI SDK page.
 *
 * The same page reads an argstream server that sends path updates
 * (`UIMessageStreamEncoder({ toolInputs: 'path-updates' })`) instead of deltas: the transport
 * applies them to its snapshot, and the AI SDK's part has no input until `input-available` either.
 */
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithToolCalls } from 'ai';
import { ArgstreamChatTransport } from 'argstream/ai-sdk';
import { useTextBlocks, useTurn } from 'argstream/react';
import { memo } from 'react';
import { ChatView, savedFile, type ViewPart } from '../chat-view.tsx';
import { tools } from '../tools.ts';

// One transport for the page's chat: its snapshot is the turn of the chat's latest response.
// @ai-sdk/react 3's useChat does not hand the transport's `resumeStreamIsReplay` to its Chat, which
// then continues a resumed message (as ai 5's does; 4's replays it): the snapshot continues with it.
const transport = new ArgstreamChatTransport({ api: '/api/chat', tools, resumeStreamIsReplay: __AI_MAJOR__ === 7 });

export function App() {
  const chat = useChat({
    transport,
    // The page runs write_file (Save) and the chat goes on by itself once every call has its result.
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
  });
  // The transport's snapshot, typed by the tools the transport was given.
  const turn = useTurn(transport);

  // While a call streams, its input so far is the snapshot's: a write_file call's typed by its
  // schema ({ path?: string; content?: string }), a call of a tool not in `tools` untyped.
  function inputOf(part: ViewPart): unknown {
    if (part.state !== 'input-streaming') return part.input;
    return turn.calls.find((c) => c.toolCallId === part.toolCallId)?.input;
  }

  // ai 5 names it addToolResult (addToolOutput since 5.0.x), ai 6 and 7 addToolOutput.
  const addOutput = __AI_MAJOR__ === 5 ? chat.addToolResult : chat.addToolOutput;

  return (
    <ChatView
      setup={`ai ${__AI_MAJOR__} · @ai-sdk/react ${__AI_MAJOR__ - 3} · ArgstreamChatTransport · ${__SERVER__ === 'ai-sdk' ? "the AI SDK's server" : 'an argstream server sending path updates'}`}
      messages={chat.messages}
      status={chat.status}
      error={chat.error}
      inputOf={inputOf}
      Content={Content}
      onSend={(text) => void chat.sendMessage({ text })}
      onSave={(toolCallId, input) => void addOutput({ tool: 'write_file', toolCallId, output: savedFile(input) })}
      onResume={() => void chat.resumeStream()}
    />
  );
}

// A large content in blocks of whole lines: a frame lays out only the last one.
function Content({ text }: { text: string }) {
  return useTextBlocks(text).map((block, i) => <Block key={i} text={block} />);
}

const Block = memo(function Block({ text }: { text: string }) {
  return <span className="line-block">{text}</span>;
});
