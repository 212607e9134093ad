/**
 * `ArgstreamChatTransport` with the real `ai` 7 (the transport's `ai` import served by `ai7`):
 * the AI SDK's own ai 7 recordings through the transport, as with ai 5 (chat-transport.test.ts),
 * ai 7's resume (`resumeStreamIsReplay`, true by default: a resumed stream replays the response
 * from its start and the snapshot starts over with it, so the partial input never doubles), its
 * `Chat` over HTTP, and `close()`. The suite is transport-helpers.ts's, the same for ai 6 and 7.
 */
import * as ai from 'ai7';
import { Chat } from '@ai-sdk/react';
import { vi } from 'vitest';
import { replayingMajor, replayingTransportTests } from './transport-helpers.ts';

vi.mock('ai', async () => await import('ai7'));
const { ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts');

replayingTransportTests(replayingMajor(7, ai, Chat, ArgstreamChatTransport));
