// @ts-check
/**
 * The page's script: a relay client in plain DOM code, no framework. It POSTs the prompt to the
 * edge function (`/api/chat` by default; `?endpoint=<url>` for another), reads the Server-Sent
 * Events with argstream's `EventStreamDecoder`, and renders each tool call while it streams: a
 * `write_file` call as `creating <path>` as soon as the path is complete, then its content as the
 * model writes it; other tools field by field.
 */
import { EventStreamDecoder, RelayError } from 'argstream';

/** @typedef {import('argstream').PipelineEvent} PipelineEvent */

const form = /** @type {HTMLFormElement} */ (document.getElementById('ask'));
const statusLine = /** @type {HTMLElement} */ (document.getElementById('status'));
const message = /** @type {HTMLElement} */ (document.getElementById('message'));
const calls = /** @type {HTMLElement} */ (document.getElementById('calls'));
const endpoint = new URLSearchParams(location.search).get('endpoint') ?? '/api/chat';

/**
 * @param {'idle' | 'streaming' | 'done' | 'error'} state
 * @param {string} text
 */
function status(state, text) {
  statusLine.dataset['state'] = state;
  statusLine.textContent = text;
}

/** One tool call on the page, keyed by its content slot. */
class CallView {
  /** @param {number} index @param {string} toolName */
  constructor(index, toolName) {
    this.element = document.createElement('article');
    this.element.className = 'call';
    this.element.dataset['index'] = String(index);
    this.element.dataset['tool'] = toolName;
    this.element.dataset['state'] = 'streaming';
    const title = document.createElement('h3');
    title.textContent = toolName;
    this.element.append(title);
    /** @type {Map<string, Text>} the text node each field's deltas are appended to */
    this.fields = new Map();
    calls.append(this.element);
  }

  /** @param {string} key */
  startField(key) {
    const text = document.createTextNode('');
    if (this.element.dataset['tool'] === 'write_file' && (key === 'path' || key === 'content')) {
      const element = document.createElement(key === 'path' ? 'p' : 'pre');
      element.className = key;
      if (key === 'path') element.append('creating ');
      const value = document.createElement(key === 'path' ? 'span' : 'code');
      value.className = `${key}-value`;
      value.append(text);
      element.append(value);
      this.element.append(element);
    } else {
      const field = document.createElement('dl');
      field.className = 'field';
      const name = document.createElement('dt');
      name.textContent = key;
      const value = document.createElement('dd');
      value.append(text);
      field.append(name, value);
      this.element.append(field);
    }
    this.fields.set(key, text);
  }

  /** @param {string} key @param {string} text */
  appendField(key, text) {
    // appendData: the node grows in place, no re-render of what is already shown.
    this.fields.get(key)?.appendData(text);
  }

  /** @param {string} key */
  endField(key) {
    this.fields.get(key)?.parentElement?.setAttribute('data-complete', '');
  }

  /** @param {unknown} argumentsValue the call's exact arguments */
  complete(argumentsValue) {
    this.element.dataset['state'] = 'complete';
    this.element.dataset['arguments'] = JSON.stringify(argumentsValue);
  }
}

/** @type {Map<number, CallView>} */
let views = new Map();

/**
 * @param {number} index
 * @param {string | undefined} toolName
 */
function viewOf(index, toolName) {
  let view = views.get(index);
  if (view === undefined) {
    view = new CallView(index, toolName ?? '');
    views.set(index, view);
  }
  return view;
}

/** @param {PipelineEvent} event */
function render(event) {
  switch (event.type) {
    case 'part':
      if (event.part.type === 'message') message.append(event.part.text);
      else if (event.part.type === 'tool-call-start') viewOf(event.index, event.part.toolName);
      break;
    case 'field-start':
      if (event.index !== undefined) viewOf(event.index, event.toolName).startField(event.key);
      break;
    case 'field-delta':
      if (event.index !== undefined) viewOf(event.index, event.toolName).appendField(event.key, event.text);
      break;
    case 'field-end':
      if (event.index !== undefined) viewOf(event.index, event.toolName).endField(event.key);
      break;
    case 'tool-call':
      viewOf(event.index, event.toolName).complete(event.arguments);
      break;
    case 'finished':
      status('streaming', `finished: ${event.reason}`);
      break;
    default:
      break;
  }
}

/** @param {string} prompt */
async function ask(prompt) {
  message.textContent = '';
  calls.textContent = '';
  views = new Map();
  status('streaming', 'streaming…');
  const decoder = new EventStreamDecoder();
  try {
    const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt }) });
    if (!response.ok || response.body === null) {
      status('error', `the server answered ${response.status} ${response.statusText}`);
      return;
    }
    // A reader rather than `for await`: Safari (WebKit) has no async iteration of a ReadableStream.
    const reader = response.body.pipeThrough(decoder).getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) render(read.value);
    status('done', 'done');
  } catch (error) {
    if (error instanceof RelayError && error.code === 'incomplete') {
      status('error', `the connection was cut after event ${decoder.lastEventId ?? 'none'}`);
    } else {
      const { name, message: text } = /** @type {Error} */ (error);
      status('error', `${name}: ${text}`);
    }
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const prompt = String(new FormData(form).get('prompt') ?? '');
  void ask(prompt);
});
