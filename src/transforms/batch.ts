/**
 * What one input chunk produces leaves a stage as few chunks as possible: adjacent pieces of
 * text bound for the same place (a string at one path of one call, one field, one path update)
 * are joined before they are enqueued. They were all known at the same instant, so nothing is
 * later for it, and each chunk a stream carries costs microseconds in every runtime (measured on
 * Node 20: ~3 µs per chunk per hop), far more than the work of most events. What a provider sent
 * (`part` events, `streaming-tool-call` deltas) is never joined: it stays cut as it came.
 * Internal.
 *
 * @module
 */
import { newPlace, placeOf, sameStringPath, withLeaf } from '../json/deep-fragment.ts';
import type { StreamFragment } from '../types.ts';

type Item = { readonly type: string } & Record<string, unknown>;

/** Whether `b` is a piece of text for the same place as `a`. */
function joinable(a: Item, b: Item): boolean {
  if (a.type !== b.type) return false;
  switch (a.type) {
    case 'tool-call-progress':
      return (
        a['index'] === b['index'] &&
        a['toolCallId'] === b['toolCallId'] &&
        a['toolName'] === b['toolName'] &&
        sameStringPath(a['fragment'] as StreamFragment, b['fragment'] as StreamFragment)
      );
    case 'structured-progress':
      return a['index'] === b['index'] && sameStringPath(a['fragment'] as StreamFragment, b['fragment'] as StreamFragment);
    case 'field-delta':
      return a['index'] === b['index'] && a['toolCallId'] === b['toolCallId'] && a['toolName'] === b['toolName'] && a['key'] === b['key'];
    case 'path-update':
      return (
        a['kind'] === 'partial-string' &&
        b['kind'] === 'partial-string' &&
        a['path'] === b['path'] &&
        a['index'] === b['index'] &&
        a['toolCallId'] === b['toolCallId']
      );
    case 'string':
    case 'entry':
    case 'item':
      return sameStringPath(a as unknown as StreamFragment, b as unknown as StreamFragment);
    default:
      return false;
  }
}

function leafText(fragment: StreamFragment): string {
  return (placeOf(fragment, place).leaf as { readonly text: string }).text;
}

const place = /* @__PURE__ */ newPlace();

function textOf(item: Item): string {
  switch (item.type) {
    case 'tool-call-progress':
    case 'structured-progress':
      return leafText(item['fragment'] as StreamFragment);
    case 'field-delta':
      return item['text'] as string;
    case 'path-update':
      return item['textValue'] as string;
    default:
      return leafText(item as unknown as StreamFragment);
  }
}

function withLeafText(fragment: StreamFragment, text: string): StreamFragment {
  return withLeaf(fragment, { type: 'string', text });
}

function withText(item: Item, text: string): Item {
  switch (item.type) {
    case 'tool-call-progress':
    case 'structured-progress':
      return { ...item, fragment: withLeafText(item['fragment'] as StreamFragment, text) };
    case 'field-delta':
      return { ...item, text };
    case 'path-update':
      return { ...item, textValue: text };
    default:
      return withLeafText(item as unknown as StreamFragment, text) as unknown as Item;
  }
}

/** Join adjacent pieces of text bound for the same place, in place; returns `items`. */
export function joinAdjacentText<T>(items: T[]): T[] {
  if (items.length < 2) return items;
  const list = items as unknown as Item[];
  let written = 0;
  let texts: string[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const item = list[i] as Item;
    const last = written > 0 ? (list[written - 1] as Item) : undefined;
    if (last !== undefined && typeof item === 'object' && item !== null && joinable(last, item)) {
      (texts ??= [textOf(last)]).push(textOf(item));
      continue;
    }
    if (texts !== undefined) {
      list[written - 1] = withText(last as Item, texts.join(''));
      texts = undefined;
    }
    list[written++] = item;
  }
  if (texts !== undefined) list[written - 1] = withText(list[written - 1] as Item, texts.join(''));
  list.length = written;
  return items;
}
