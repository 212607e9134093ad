/**
 * A reader for `test/fixtures/providers/MANIFEST.md`: per recording, the tool calls it must
 * assemble to, its final stop/finish text and the errors it carries. The manifest is the oracle
 * of the provider tests, so nothing here runs the code under test.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from './helpers.ts';

/** One expected tool call, as the manifest lists it. */
export interface ManifestToolCall {
  /** The call id; `''` when the manifest says `(none on the wire)`. */
  readonly id: string;
  readonly name: string;
  /** Anthropic block index / Bedrock contentBlockIndex / Cohere index, where listed. */
  readonly index?: number;
  /** OpenAI Responses `item_id`, where listed. */
  readonly itemId?: string;
  /** OpenAI Responses `output_index`, where listed. */
  readonly outputIndex?: number;
  /**
   * The exact assembled argument string. `''` for "empty string, treat as `{}`". For Gemini and
   * Ollama (`args (object, serialized)`) it is `JSON.stringify` of the object the wire carries.
   */
  readonly args: string;
  /** True when the wire carries an object that the manifest serialized (`args (object, serialized)`). */
  readonly serialized: boolean;
  /** A parenthesised note after the identity, e.g. `server_tool_use, executed by Anthropic`. */
  readonly note?: string;
  /** The remark after the args, e.g. `empty string, treat as {}` or `NOT valid JSON (…)`. */
  readonly remark?: string;
}

/** One recording of the manifest. */
export interface ManifestRecording {
  /** Path relative to `test/fixtures/providers/`, e.g. `anthropic/text-then-tool-use.sse`. */
  readonly file: string;
  /** The directory the file is in (`anthropic`, `openai-chat`, …). */
  readonly dir: string;
  /** The raw "Final stop/finish" text without its backticks (e.g. `"tool_use"`); `''` when absent. */
  readonly finish: string;
  /** The raw "Errors in stream" text without its backticks; `undefined` when absent. */
  readonly errors?: string;
  /** The "Status" line (`real capture …`, `**hand-written** …`). */
  readonly status: string;
  /** The calls the application runs: what `turn.toolCalls` must hold. */
  readonly toolCalls: readonly ManifestToolCall[];
  /**
   * The calls the provider runs itself (a bullet whose note says `executed by …`): what
   * `turn.providerToolCalls` must hold, never in `toolCalls`.
   */
  readonly providerToolCalls: readonly ManifestToolCall[];
}

/** Whether a manifest bullet is a call the provider runs (its note says `executed by …`). */
export function isProviderExecuted(call: ManifestToolCall): boolean {
  return call.note?.includes('executed by') === true;
}

const MANIFEST_PATH = join(FIXTURES, 'providers', 'MANIFEST.md');

/** Strip one pair of surrounding backticks, if present. */
function unquote(text: string): string {
  const t = text.trim();
  return t.startsWith('`') && t.endsWith('`') && t.length >= 2 ? t.slice(1, -1) : t;
}

/**
 * Parse the text after `args=` (starting at the opening backtick) up to its closing backtick, which
 * is the first backtick followed by the end of a line or by ` — `. Returns the args and the remark.
 */
function readArgs(text: string): { args: string; remark?: string } {
  if (!text.startsWith('`')) throw new Error(`manifest: args do not start with a backtick: ${text.slice(0, 40)}`);
  for (let i = 1; i < text.length; i++) {
    if (text[i] !== '`') continue;
    const rest = text.slice(i + 1);
    if (rest === '' || rest.startsWith('\n')) return { args: text.slice(1, i) };
    if (rest.startsWith(' — ')) {
      const remark = rest.slice(3).split('\n', 1)[0] ?? '';
      return { args: text.slice(1, i), remark: remark.trim() };
    }
  }
  throw new Error(`manifest: unterminated args: ${text.slice(0, 40)}`);
}

/** Parse one tool-call bullet (which may span several lines). */
function parseToolCall(bullet: string): ManifestToolCall {
  const head = /^ {2}- id=`([^`]*)` name=`([^`]*)`(.*?)\bargs( \(object, serialized\))?=/s.exec(bullet);
  if (!head) throw new Error(`manifest: cannot read tool call: ${bullet.slice(0, 80)}`);
  const [whole, rawId = '', name = '', attrs = '', serializedMark] = head;
  const index = /\bindex=(\d+)/.exec(attrs.replace(/output_index=\d+/, ''));
  const itemId = /\bitem_id=`([^`]*)`/.exec(attrs);
  const outputIndex = /\boutput_index=(\d+)/.exec(attrs);
  const note = /\(([^)]*)\)/.exec(attrs.replace(/`[^`]*`/g, ''));
  const { args, remark } = readArgs(bullet.slice(whole.length));
  return {
    id: rawId === '(none on the wire)' ? '' : rawId,
    name,
    ...(index?.[1] !== undefined ? { index: Number(index[1]) } : {}),
    ...(itemId?.[1] !== undefined ? { itemId: itemId[1] } : {}),
    ...(outputIndex?.[1] !== undefined ? { outputIndex: Number(outputIndex[1]) } : {}),
    args,
    serialized: serializedMark !== undefined,
    ...(note?.[1] !== undefined ? { note: note[1].trim() } : {}),
    ...(remark !== undefined ? { remark } : {}),
  };
}

/** Parse the manifest text into recordings, in document order. */
export function parseManifest(markdown: string): ManifestRecording[] {
  const text = markdown.replace(/\r\n?/g, '\n');
  const sections = text.split(/^### /m).slice(1);
  return sections.map((section) => {
    const title = /^`([^`]+)`/.exec(section);
    if (!title?.[1]) throw new Error(`manifest: section without a file name: ${section.slice(0, 40)}`);
    const file = title[1];
    // Only the part up to the next "## " heading belongs to this section.
    const body = section.split(/^## /m)[0] ?? '';
    const field = (label: string): string | undefined => {
      const m = new RegExp(`^- ${label}: (.*)$`, 'm').exec(body);
      return m?.[1];
    };
    const finishText = field('Final stop/finish');
    const errorsText = field('Errors in stream');
    const toolCalls: ManifestToolCall[] = [];
    const listStart = /^- Expected tool calls \((\d+)\):\n/m.exec(body);
    if (listStart) {
      const list = body.slice(listStart.index + listStart[0].length);
      // A bullet starts at "  - id=" and runs to the next bullet or the end of the section.
      const bullets = list.split(/\n(?= {2}- id=)/).map((b) => b.replace(/\n+$/, ''));
      for (const bullet of bullets) if (bullet.startsWith('  - id=')) toolCalls.push(parseToolCall(bullet));
      if (toolCalls.length !== Number(listStart[1])) {
        throw new Error(`manifest: ${file} lists ${listStart[1]} tool calls, read ${toolCalls.length}`);
      }
    }
    return {
      file,
      dir: file.split('/')[0] ?? '',
      finish: finishText === undefined ? '' : unquote(finishText),
      ...(errorsText !== undefined ? { errors: unquote(errorsText) } : {}),
      status: field('Status') ?? '',
      toolCalls: toolCalls.filter((call) => !isProviderExecuted(call)),
      providerToolCalls: toolCalls.filter(isProviderExecuted),
    };
  });
}

let cached: ManifestRecording[] | undefined;

/** Every recording of the manifest (read once). */
export function readManifest(): ManifestRecording[] {
  cached ??= parseManifest(readFileSync(MANIFEST_PATH, 'utf8'));
  return cached;
}

/** The manifest entry of one recording, by its path relative to `test/fixtures/providers/`. */
export function manifestEntry(file: string): ManifestRecording {
  const entry = readManifest().find((r) => r.file === file);
  if (!entry) throw new Error(`manifest: no entry for ${file}`);
  return entry;
}

/** The recordings in one provider directory (`anthropic`, `openai-responses`, …). */
export function manifestRecordings(dir: string): ManifestRecording[] {
  return readManifest().filter((r) => r.dir === dir);
}
