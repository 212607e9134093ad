/**
 * `ArgstreamChatTransport` with the real `ai` 6 (the transport's `ai` import served by `ai6`):
 * the AI SDK's own ai 6 recordings through the transport, as with ai 5 (chat-transport.test.ts),
 * ai 6's resume (`resumeStreamIsReplay`, true by default: a resumed stream replays the response
 * from its start and the snapshot starts over with it, so the partial input never doubles), its
 * `Chat` over HTTP, and `close()`. The suite is transport-helpers.ts's, the same for ai 6 and 7.
 */
import * as ai from 'ai6';
import { Chat } from 'ai-sdk-react3';
import { vi } from 'vitest';
import { replayingMajor, replayingTransportTests } from './transport-helpers.ts';

vi.mock('ai', async () => await import('ai6'));
const { ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts');

replayingTransportTests(replayingMajor(6, ai, Chat, ArgstreamChatTransport));
