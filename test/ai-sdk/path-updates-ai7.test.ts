/**
 * `UIMessageStreamEncoder({ major: 7, toolInputs: 'path-updates' })` with the real `ai` 7, and
 * `ArgstreamChatTransport` extending ai 7's `HttpChatTransport` (its `ai` import served by
 * `ai7`) under `@ai-sdk/react` 4's `Chat`: the suite of transport-helpers.ts, the same for
 * ai 6 and 7 (what it checks is said there).
 */
import * as ai from 'ai7';
import { Chat } from '@ai-sdk/react';
import { vi } from 'vitest';
import { pathUpdateTests, replayingMajor } from './transport-helpers.ts';

vi.mock('ai', async () => await import('ai7'));
const { ArgstreamChatTransport } = await import('../../src/ai-sdk/chat-transport.ts');

pathUpdateTests(replayingMajor(7, ai, Chat, ArgstreamChatTransport));
