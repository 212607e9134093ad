/**
 * `UIMessageStreamEncoder({ major: 6, toolInputs: 'path-updates' })` with the real `ai` 6, and
 * `ArgstreamChatTransport` extending ai 6's `HttpChatTransport` (its `ai` import served by
 * `ai6`) under `@ai-sdk/react` 3's `Chat`: the suite of transport-helpers.ts, the same for
 * ai 6 and 7 (what it checks is said there).
 */
import * as ai from 'ai6';
import { Chat } from 'ai-sdk-react3';
import { vi } from 'vitest';
import { pathUpdateTests, replayingMajor } from './transport-helpers.ts';

vi.mock('ai', async () => await import('ai6'));
const { ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts');

pathUpdateTests(replayingMajor(6, ai, Chat, ArgstreamChatTransport));
