/**
 * The error bodies providers answer an HTTP error with, read into a {@link ProviderError}: shared
 * by `fromResponse` (which knows the status) and `ProviderEventDecoder` (fed such a body as if it
 * were a stream, e.g. `curl` output).
 *
 * @module
 */
import { ProviderError, type ProviderName, excerpt } from '../errors.ts';
import { isRecord, nonEmptyString, nonEmptyStringAt } from './json-access.ts';

/** What is known of the HTTP response besides its body. */
export interface ErrorResponseInfo {
  readonly status?: number | undefined;
  readonly statusText?: string | undefined;
  /** Bedrock's `x-amzn-errortype` header (`ThrottlingException:http://…`), where present. */
  readonly amznErrorType?: string | null | undefined;
}

/** Longest provider message kept (they are written by the provider, not by the model). */
const MAX_MESSAGE = 1000;

/**
 * Whether a decoded JSON value is an HTTP error body rather than a stream record: Anthropic's
 * `{"type":"error","error":{…}}`, OpenAI's and Gemini's `{"error":{…}}` (Gemini's also in an
 * array), Ollama's `{"error":"…"}`, and for Bedrock a body with a `message` and nothing else a
 * ConverseStream event carries, for Cohere a body with a `message` and no event `type`.
 */
export function isErrorBody(provider: ProviderName, value: unknown): boolean {
  const body = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (!isRecord(body)) return false;
  const error = body['error'];
  if (isRecord(error) || nonEmptyString(error) !== undefined) return true;
  if (provider === 'bedrock') return nonEmptyStringAt(body, 'message') !== undefined || nonEmptyStringAt(body, 'Message') !== undefined;
  // Cohere's `{"id": "…", "message": "…"}`; its stream events all have a `type`.
  if (provider === 'cohere') return nonEmptyStringAt(body, 'message') !== undefined && body['type'] === undefined;
  return false;
}

/**
 * The {@link ProviderError} of an HTTP error body: the provider's error type, code and message
 * from its JSON, else the status text and an excerpt of the body. `text` is the whole body.
 */
export function providerErrorFromBody(provider: ProviderName, text: string, info: ErrorResponseInfo = {}): ProviderError {
  let value: unknown;
  let parsed = false;
  try {
    value = JSON.parse(text);
    parsed = true;
  } catch {
    // not JSON: an HTML page of a proxy, plain text
  }
  const status = info.status;
  const statusText = nonEmptyString(info.statusText);
  // The status text only where the body says nothing: with the provider's own message it adds
  // nothing, and Node's server calls the statuses it does not know (529) "unknown".
  const http = status === undefined ? '' : `HTTP ${status}`;
  const body = Array.isArray(value) && value.length >= 1 ? value[0] : value;
  if (parsed && isRecord(body)) {
    const read = readErrorBody(provider, body, info);
    if (read !== undefined) {
      const message = read.message.length > MAX_MESSAGE ? `${read.message.slice(0, MAX_MESSAGE)}…` : read.message;
      return new ProviderError(
        provider,
        read.type,
        `${provider}${http === '' ? '' : ` ${http}`}: ${read.type === 'error' ? '' : `${read.type}: `}${message}`,
        { code: read.code, status, cause: value },
      );
    }
  }
  const shown = text.replace(/\s+/g, ' ').trim();
  const httpText = http === '' ? '' : ` ${http}${statusText === undefined ? '' : ` ${statusText}`}`;
  return new ProviderError(
    provider,
    'http-error',
    `${provider}${httpText}${shown === '' ? ' (empty body)' : `: "${excerpt(shown)}"`}`,
    { status, cause: parsed ? value : undefined },
  );
}

interface ErrorFields {
  readonly type: string;
  readonly message: string;
  readonly code: string | undefined;
}

function codeOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

function readErrorBody(provider: ProviderName, body: Readonly<Record<string, unknown>>, info: ErrorResponseInfo): ErrorFields | undefined {
  const error = body['error'];
  if (isRecord(error)) {
    // Anthropic {type:'error', error:{type, message}}; OpenAI {error:{message, type, code, param}};
    // Gemini {error:{code, message, status, details}}.
    const message = nonEmptyStringAt(error, 'message');
    const type = nonEmptyStringAt(error, 'type') ?? nonEmptyStringAt(error, 'status') ?? 'error';
    return { type, message: message ?? bodyExcerpt(error), code: codeOf(error['code']) };
  }
  const errorText = nonEmptyString(error);
  if (errorText !== undefined) {
    // Ollama {error: "…"}; some compatible servers also send a top-level type/code.
    return { type: nonEmptyStringAt(body, 'type') ?? 'error', message: errorText, code: codeOf(body['code']) };
  }
  const message = nonEmptyStringAt(body, 'message') ?? nonEmptyStringAt(body, 'Message');
  if (message !== undefined) {
    // Bedrock {message} with the type in `x-amzn-errortype` (or `__type`: `…#ValidationException`);
    // Cohere {id, message}.
    const header = nonEmptyString(info.amznErrorType ?? undefined)?.split(':', 1)[0];
    const dunder = nonEmptyStringAt(body, '__type')?.split('#').pop();
    const type = header ?? nonEmptyString(dunder) ?? nonEmptyStringAt(body, 'type') ?? nonEmptyStringAt(body, 'code') ?? 'error';
    return { type, message, code: provider === 'bedrock' ? undefined : codeOf(body['code']) };
  }
  return undefined;
}

/** The start of an error body as JSON text, for a message: never a RangeError for one nested too deep to write. */
function bodyExcerpt(value: unknown): string {
  try {
    return (JSON.stringify(value) ?? '').slice(0, 200);
  } catch {
    return 'an error body that could not be written as JSON text (nested too deeply)';
  }
}
