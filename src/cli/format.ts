/**
 * One line per pipeline event, for `argstream inspect`: a compact human-readable form, and the
 * JSON form of `--json` (errors, which `JSON.stringify` writes as `{}`, become their name and
 * message). Both are safe to write to a terminal: the text form shows control characters as
 * `TerminalSink` does, the JSON form escapes them (`\u009b`), so its values stay exact.
 *
 * @module
 */
import { printable } from '../log/event-log.ts';
import { terminalText } from '../sinks/terminal.ts';
import type { PipelineEvent, StreamFragment, Usage } from '../types.ts';

/** Text quoted as a JSON string: escapes keep every event on one line. */
function quote(text: string): string {
  return JSON.stringify(text);
}

/** An RFC 6901 pointer for display: the root (`""`) reads `(root)`. */
function pointer(path: string): string {
  return path === '' ? '(root)' : path;
}

function escapeKey(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `/a/0 string "x"`: the JSON Pointer a fragment nests to, and what it says there. */
export function formatFragment(fragment: StreamFragment): string {
  let path = '';
  let node = fragment;
  while (node.type === 'entry' || node.type === 'item') {
    path += `/${node.type === 'entry' ? escapeKey(node.key) : String(node.index)}`;
    node = node.value;
  }
  let leaf: string;
  switch (node.type) {
    case 'start':
      leaf = `start ${node.kind}`;
      break;
    case 'string':
      leaf = `string ${quote(node.text)}`;
      break;
    case 'scalar':
      leaf = `scalar ${node.raw ?? JSON.stringify(node.value)}`;
      break;
    case 'done':
      leaf = 'done';
      break;
  }
  return `${pointer(path)} ${leaf}`;
}

/** `1200 in / 85 out tokens`, from what the provider reported. */
export function formatUsage(usage: Usage | undefined): string {
  if (usage === undefined) return '';
  const parts: string[] = [];
  if (usage.inputTokens !== undefined) parts.push(`${usage.inputTokens} in`);
  if (usage.outputTokens !== undefined) parts.push(`${usage.outputTokens} out`);
  if (usage.reasoningTokens !== undefined) parts.push(`${usage.reasoningTokens} reasoning`);
  return parts.length === 0 ? '' : `${parts.join(' / ')} tokens`;
}

/** `get_weather toolu_01…` (an id the provider did not send is left out). */
function call(toolName: string, toolCallId: string | undefined): string {
  return toolCallId ? `${toolName || '(unnamed)'} ${toolCallId}` : toolName || '(unnamed)';
}

/** ` (provider)` for a call the provider runs itself. */
function byProvider(providerExecuted: true | undefined): string {
  return providerExecuted === true ? ' (provider)' : '';
}

/**
 * One event as one line of text, starting with its type and content slot. Ids, names, keys and
 * messages come from the model or the wire: control characters in them (line feeds included) are
 * shown as visible characters, never written raw.
 */
export function formatEvent(event: PipelineEvent): string {
  return terminalText(eventLine(event), 'show');
}

/** {@link formatEvent}'s line before control characters are made visible. */
function eventLine(event: PipelineEvent): string {
  switch (event.type) {
    case 'part': {
      const part = event.part;
      const head = `part #${event.index} ${part.type}`;
      switch (part.type) {
        case 'message':
        case 'reasoning':
        case 'refusal':
          return `${head} ${quote(part.text)}`;
        case 'structured':
          return `${head} ${quote(part.json)}`;
        case 'tool-call-start':
          return `${head} ${call(part.toolName, part.toolCallId)}${byProvider(part.providerExecuted)}`;
        case 'provider-tool-result':
          return `${head} ${call(part.toolName ?? '', part.toolCallId)}${part.isError ? ' (error)' : ''} ${JSON.stringify(part.result)}`;
        case 'tool-call-arguments':
          return `${head} ${quote(part.chunk)}`;
      }
      break;
    }
    case 'flush':
      return `flush #${event.index}`;
    case 'finished': {
      const usage = formatUsage(event.usage);
      return `finished ${event.reason}${event.rawReason === undefined ? '' : ` (${event.rawReason})`}${usage ? ` · ${usage}` : ''}`;
    }
    case 'tool-call-progress':
      return `progress #${event.index} ${call(event.toolName, event.toolCallId)}${byProvider(event.providerExecuted)} ${formatFragment(event.fragment)}`;
    case 'structured-progress':
      return `structured-progress #${event.index} ${formatFragment(event.fragment)}`;
    case 'message':
      return `message #${event.index} ${quote(event.text)}`;
    case 'reasoning':
      return `reasoning #${event.index} ${quote(event.text)}${event.signature === undefined ? '' : ' (signed)'}`;
    case 'refusal':
      return `refusal #${event.index} ${quote(event.text)}`;
    case 'provider-tool-call':
      return `provider-tool-call #${event.index} ${call(event.toolName, event.toolCallId)} ${JSON.stringify(event.arguments)}${event.truncated ? ' (truncated)' : ''}`;
    case 'provider-tool-result':
      return `provider-tool-result #${event.index} ${call(event.toolName ?? '', event.toolCallId)}${event.isError ? ' (error)' : ''} ${JSON.stringify(event.result)}`;
    case 'structured':
      return `structured #${event.index} ${JSON.stringify(event.data)}`;
    case 'tool-call':
      return `tool-call #${event.index} ${call(event.toolName, event.toolCallId)} ${JSON.stringify(event.arguments)}${event.truncated ? ' (truncated)' : ''}`;
    case 'tool-call-incomplete':
      return `tool-call-incomplete #${event.index} ${call(event.toolName, event.toolCallId)}${byProvider(event.providerExecuted)} stopped in ${pointer(event.path)}${event.stopReason === undefined ? '' : ` (${event.stopReason})`}`;
    case 'tool-call-failed':
      return `tool-call-failed #${event.index} ${call(event.toolName, event.toolCallId)}${byProvider(event.providerExecuted)}: ${event.error.message}`;
    case 'field-start':
      return `field-start #${event.index ?? '-'} ${call(event.toolName ?? '', event.toolCallId)} ${quote(event.key)}`;
    case 'field-delta':
      return `field-delta #${event.index ?? '-'} ${call(event.toolName ?? '', event.toolCallId)} ${quote(event.key)} ${quote(event.text)}`;
    case 'field-end':
      return `field-end #${event.index ?? '-'} ${call(event.toolName ?? '', event.toolCallId)} ${quote(event.key)}`;
    case 'path-update': {
      const head = `path-update #${event.index ?? '-'} ${pointer(event.path)} ${event.kind}`;
      switch (event.kind) {
        case 'key':
        case 'partial-string':
          return `${head} ${quote(event.textValue)}`;
        case 'complete-number':
          return `${head} ${event.raw ?? String(event.value)}`;
        case 'complete-boolean':
        case 'complete-null':
          return `${head} ${String(event.value)}`;
        default:
          return head;
      }
    }
    case 'streaming-tool-call':
      return `streaming-tool-call #${event.index} ${call(event.toolName, event.toolCallId)}${byProvider(event.providerExecuted)} ${event.isComplete ? 'complete' : quote(event.argumentsDelta)}`;
    case 'validation-error':
      return `validation-error #${event.index} ${call(event.toolName, event.toolCallId)} ${pointer(event.path)}: ${event.issues.map((issue) => issue.message).join('; ')}`;
  }
  return JSON.stringify(event, jsonReplacer);
}

/** `JSON.stringify` replacer: an `Error` becomes `{name, message}` instead of `{}`. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * One event as one line of JSON, with the control characters `JSON.stringify` leaves as they are
 * (DEL, C1 such as the CSI U+009B, line and bidi separators) escaped: the same values, nothing a
 * terminal acts on.
 */
export function formatEventJson(event: unknown): string {
  return printable(JSON.stringify(event, jsonReplacer));
}
