import { describe, expect, it } from 'vitest';
import { listFixtures } from './helpers.ts';
import { manifestEntry, readManifest } from './manifest.ts';

describe('readManifest', () => {
  it('finds every recording and every tool call the manifest lists', () => {
    const recordings = readManifest();
    // 68 wire recordings, 7 AG-UI streams made from some of them (ag-ui/), 54 of LangChain.js
    // objects made from six of them (langchain/), and 7 Gemini Interactions streams.
    expect(recordings).toHaveLength(68 + 7 + 54 + 7);
    expect(recordings.reduce((n, r) => n + r.toolCalls.length, 0)).toBe(66 + 7 + 56 + 5);
    // Calls the provider runs (Anthropic server tools, a Responses web search) are listed apart.
    expect(recordings.reduce((n, r) => n + r.providerToolCalls.length, 0)).toBe(3 + 8 + 1);
    expect(recordings.filter((r) => r.toolCalls.length === 0)).toHaveLength(22 + 2 + 14 + 3);
  });

  it('names only files that exist', () => {
    for (const r of readManifest()) expect(listFixtures(`providers/${r.dir}`)).toContain(r.file.slice(r.dir.length + 1));
  });

  it('reads identity, indices and the exact argument string', () => {
    const two = manifestEntry('anthropic/text-then-2-parallel-tool-use.sse');
    expect(two.finish).toBe('"tool_use"');
    expect(two.toolCalls[1]).toEqual({
      id: 'toolu_01NRtod2L7M7TBDj9GCzsZCx',
      name: 'get_time',
      index: 2,
      args: '{"timezone": "America/New_York"}',
      serialized: false,
    });
    const responses = manifestEntry('openai-responses/function-call.sse');
    expect(responses.toolCalls[0]).toMatchObject({
      id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL',
      itemId: 'fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2',
      outputIndex: 0,
      args: '{"country":"France"}',
    });
    expect(responses.toolCalls[0]).not.toHaveProperty('index');
  });

  it('reads empty, multi-line and serialized arguments', () => {
    expect(manifestEntry('anthropic/parallel-2-tool-use-no-args.sse').toolCalls.map((c) => c.args)).toEqual(['', '']);
    const truncated = manifestEntry('anthropic/tool-use-truncated-max-tokens.sse').toolCalls[0];
    expect(truncated?.args).toBe(
      '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s",\n"",\n"## INTRODUCTION",\n"",\n"Filing taxes',
    );
    expect(truncated?.remark).toMatch(/^NOT valid JSON/);
    const cohere = manifestEntry('cohere/v2-raw-2-tool-calls-newlines-in-args.sse').toolCalls;
    expect(cohere.map((c) => c.args)).toEqual(['{\n    "location": "Tokyo"\n}', '{\n    "location": "Tokyo"\n}']);
    const gemini = manifestEntry('gemini/function-call-whole-args-crlf.sse').toolCalls[0];
    expect(gemini).toMatchObject({ id: '', name: 'get_capital', args: '{"country":"France"}', serialized: true });
    const serverEntry = manifestEntry('anthropic/server-tool-use-code-execution-escapes-emoji.sse');
    expect(serverEntry.toolCalls).toEqual([]);
    const server = serverEntry.providerToolCalls[0];
    expect(server?.note).toBe('server_tool_use, executed by Anthropic');
    expect(server?.args).toBe('{"command": "echo \\"65465-6544 * 65464-6+1.02255\\" | bc -l"}');
  });

  it('reads finish and errors', () => {
    expect(manifestEntry('openai-chat/n3-choices-interleaved.sse').finish).toBe('{"0": "stop", "1": "stop", "2": "stop"}');
    const failed = manifestEntry('openai-responses/error-then-response-failed.sse');
    expect(failed.finish).toBe('"failed"');
    expect(JSON.parse(failed.errors ?? '')).toMatchObject([{ type: 'insufficient_quota', code: 'insufficient_quota' }]);
    expect(manifestEntry('ollama/docs-generate-midstream-error.ndjson').finish).toBe('');
  });
});
