/**
 * The turn so far in few events: what a relay sends a client that resumes far behind, in place of
 * the history that made it.
 *
 * @module
 */
import { newPlace, placeOf, withLeaf } from '../json/deep-fragment.ts';
import type { PipelineEvent, StreamFragment } from '../types.ts';

/** A mergeable piece of text: the lane it joins, the stream it continues, and its text. */
interface Piece {
  /** Whose events it must stay in order with: its content slot (`s<index>`), its call, or all (`*`). */
  readonly owner: string;
  /** The text it continues: a later piece of the same stream with another `target` closes the lane. */
  readonly stream: string;
  /** Every field the merged event keeps from its first piece: pieces merge only when it is equal. */
  readonly target: string;
  readonly text: string;
}

/** The pieces of one target, merged into the first one's event, at its place. */
class Lane {
  readonly first: PipelineEvent;
  readonly owner: string;
  readonly stream: string;
  readonly target: string;
  readonly texts: string[];

  constructor(first: PipelineEvent, piece: Piece) {
    this.first = first;
    this.owner = piece.owner;
    this.stream = piece.stream;
    this.target = piece.target;
    this.texts = [piece.text];
  }

  event(): PipelineEvent {
    return this.texts.length === 1 ? this.first : merged(this.first, this.texts.join(''));
  }
}

const place = /* @__PURE__ */ newPlace();

/** Loose access to the members some events have and others do not. */
interface Members {
  readonly type: string;
  readonly index?: unknown;
  readonly toolCallId?: unknown;
  readonly toolName?: unknown;
  readonly metadata?: unknown;
}

/** The content slot (`s<index>`), else the call (`c<id>`), else `*`: the events an event must stay in order with. */
function ownerOf(event: Members, callSlots: ReadonlyMap<string, number>): string {
  if (typeof event.index === 'number') return `s${event.index}`;
  if (typeof event.toolCallId === 'string' && event.toolCallId !== '') {
    const slot = callSlots.get(event.toolCallId);
    return slot === undefined ? `c${event.toolCallId}` : `s${slot}`;
  }
  return '*';
}

/** The path of a fragment's leaf (a deep fragment's by its innermost step) and the leaf's text, if it is a string piece. */
function fragmentPiece(fragment: StreamFragment): { path: string; text: string } | undefined {
  const { leaf, step } = placeOf(fragment, place);
  if (leaf.type !== 'string') return undefined;
  if (step !== undefined) return { path: `#${step.id}`, text: leaf.text };
  let path = '';
  for (let wrapper = fragment; wrapper.type === 'entry' || wrapper.type === 'item'; wrapper = wrapper.value) {
    path += wrapper.type === 'entry' ? `/k${JSON.stringify(wrapper.key)}` : `/i${wrapper.index}`;
  }
  return { path, text: leaf.text };
}

function metadataKey(metadata: unknown): string {
  return metadata === undefined ? '' : (JSON.stringify(metadata) ?? '');
}

/** The piece an event is, or `undefined` for an event that is not a piece of text (a boundary). */
function pieceOf(event: PipelineEvent, owner: string): Piece | undefined {
  const S = '\u0000';
  switch (event.type) {
    case 'part': {
      const part = event.part;
      const meta = metadataKey(event.metadata);
      let stream: string;
      let text: string;
      if (part.type === 'message' || part.type === 'reasoning' || part.type === 'refusal') {
        stream = `m${event.index}`;
        text = part.text;
      } else if (part.type === 'tool-call-arguments') {
        stream = `a${event.index}`;
        text = part.chunk;
      } else if (part.type === 'structured') {
        stream = `j${event.index}`;
        text = part.json;
      } else return undefined;
      return { owner, stream, target: `${stream}${S}${part.type}${S}${meta}`, text };
    }
    case 'tool-call-progress':
    case 'structured-progress': {
      const piece = fragmentPiece(event.fragment);
      if (piece === undefined) return undefined;
      const stream = `${event.type === 'structured-progress' ? 's' : 'p'}${event.index}${S}${piece.path}`;
      const target =
        event.type === 'tool-call-progress'
          ? `${stream}${S}${event.toolCallId}${S}${event.toolName}${S}${event.providerExecuted === true ? 'x' : ''}`
          : stream;
      return { owner, stream, target, text: piece.text };
    }
    case 'field-delta': {
      const stream = `d${event.index ?? ''}${S}${event.index === undefined ? (event.toolCallId ?? '') : ''}${S}${event.key}`;
      return { owner, stream, target: `${stream}${S}${event.toolCallId ?? '-'}${S}${event.toolName ?? '-'}`, text: event.text };
    }
    case 'path-update': {
      // The pieces of one string follow each other in their document (every other update of the
      // document closes the lane): the merged update keeps the first piece's path, relative or not.
      if (event.kind !== 'partial-string') return undefined;
      const stream = `u${event.index ?? ''}${S}${event.toolCallId ?? ''}${S}${event.structured === true ? 's' : ''}`;
      return { owner, stream, target: stream, text: event.textValue };
    }
    case 'streaming-tool-call': {
      if (event.isComplete || event.argumentsDelta === '') return undefined;
      const stream = `c${event.index}`;
      const target = `${stream}${S}${event.toolCallId}${S}${event.toolName}${S}${event.messageId ?? ''}${S}${event.providerExecuted === true ? 'x' : ''}${S}${metadataKey(event.metadata)}`;
      return { owner, stream, target, text: event.argumentsDelta };
    }
    default:
      return undefined;
  }
}

/** The first event of a lane with its text replaced by the lane's whole text. */
function merged(first: PipelineEvent, text: string): PipelineEvent {
  switch (first.type) {
    case 'part': {
      const part = first.part;
      if (part.type === 'tool-call-arguments') return { ...first, part: { ...part, chunk: text } };
      if (part.type === 'structured') return { ...first, part: { ...part, json: text } };
      if (part.type === 'message' || part.type === 'reasoning' || part.type === 'refusal') return { ...first, part: { ...part, text } };
      return first;
    }
    case 'tool-call-progress':
    case 'structured-progress':
      return { ...first, fragment: withLeaf(first.fragment, { type: 'string', text }) };
    case 'field-delta':
      return { ...first, text };
    case 'path-update':
      return first.kind === 'partial-string' ? { ...first, textValue: text } : first;
    case 'streaming-tool-call':
      return { ...first, argumentsDelta: text };
    default:
      return first;
  }
}

/** What closes a slot's streaming: the conversation event a consumer builds the slot from. */
type FinalKind = 'call' | 'text' | 'structured';

interface Final {
  readonly at: number;
  readonly kind: FinalKind;
  /** The call's id (`''` for a text or structured slot, or a call without one). */
  readonly id: string;
}

function finalKind(type: string): FinalKind | undefined {
  switch (type) {
    case 'tool-call':
    case 'provider-tool-call':
      return 'call';
    case 'message':
    case 'reasoning':
    case 'refusal':
      return 'text';
    case 'structured':
      return 'structured';
    default:
      return undefined;
  }
}

/** Whether an event streamed what its slot's final event holds whole (so a consumer of the final event has no use for it). */
function streamedInto(event: PipelineEvent, final: Final): 'drop' | 'first' | 'keep' {
  const id = (event as Members).toolCallId;
  // A call id that differs is another call (a slot reused by a later step).
  if (typeof id === 'string' && id !== '' && final.id !== '' && id !== final.id) return 'keep';
  switch (final.kind) {
    case 'call':
      switch (event.type) {
        case 'tool-call-progress':
          return 'drop';
        case 'field-start':
        case 'field-delta':
        case 'field-end':
          return event.toolCallId !== undefined || event.toolName !== undefined ? 'drop' : 'keep';
        case 'path-update':
          return event.structured === true ? 'keep' : 'drop';
        case 'streaming-tool-call':
          return event.argumentsDelta !== '' ? 'drop' : 'keep';
        case 'part':
          return event.part.type === 'tool-call-arguments' ? 'drop' : 'keep';
        default:
          return 'keep';
      }
    case 'text':
      return event.type === 'part' && (event.part.type === 'message' || event.part.type === 'reasoning' || event.part.type === 'refusal') ? 'first' : 'keep';
    case 'structured':
      switch (event.type) {
        case 'structured-progress':
          return 'drop';
        case 'field-start':
        case 'field-delta':
        case 'field-end':
          return event.toolCallId === undefined && event.toolName === undefined ? 'drop' : 'keep';
        case 'path-update':
          return event.structured === true ? 'drop' : 'keep';
        case 'part':
          return event.part.type === 'structured' ? 'first' : 'keep';
        default:
          return 'keep';
      }
    default:
      return 'keep';
  }
}

/** The events with every snapshot replaced by the events it holds. */
function flatten(events: readonly PipelineEvent[], out: PipelineEvent[]): PipelineEvent[] {
  for (const event of events) {
    if (event.type === 'snapshot') flatten(event.events, out);
    else out.push(event);
  }
  return out;
}

/**
 * An equivalent, shorter list of events: what a consumer of the returned events ends up with —
 * `collectTurn`'s turn, `TurnStore`'s snapshot, the turn builder's state, what an
 * `EventStreamDecoder`'s reader has built — is what it gets from `events`, and the events that
 * followed `events` can follow the returned ones. In the events' own vocabulary (whatever stage
 * made them), so every consumer understands it; a `snapshot` event of them is the turn so far, for
 * a client that resumes far behind (`resumeEventStream`'s `snapshot`).
 *
 * - **Text pieces of one target are merged**, across the events of other targets: a slot's
 *   message, reasoning or refusal parts, a call's raw argument chunks (`tool-call-arguments`
 *   parts, `streaming-tool-call` deltas), a structured document's JSON, the `field-delta`s of one
 *   field, the `partial-string` path updates of one string, the string pieces of one path in
 *   `tool-call-progress` / `structured-progress`. A merged piece is its first piece's event with
 *   the joined text, at the first piece's place; it never crosses another event of its own slot
 *   (its call's `field-end`, the next path update of its document, a flush, …) nor a piece of the
 *   same text that differs in anything else (metadata, a call id learned later), and
 *   `finished`, or an event of no slot, closes every merge.
 * - **A call whose complete arguments are in the list** (`tool-call`, `provider-tool-call`) loses
 *   the events that streamed them: its `tool-call-arguments` parts, `streaming-tool-call` deltas,
 *   `tool-call-progress`, field events and path updates. Its `tool-call-start` parts (where it
 *   began, for the order of the calls), flush, `streaming-tool-call` announcement and completion
 *   and validation errors stay: every consumer builds the call from its final event (the turn
 *   builder reports it as it is; `TurnStore` takes its arguments and marks every path complete).
 *   A call that ended `tool-call-incomplete` or `tool-call-failed` keeps its streaming events
 *   (merged): what it holds so far — its partial input, which of its paths are complete — is
 *   built from them, not from the final event.
 * - **A text or structured slot whose conversation event is in the list** (`message`,
 *   `reasoning`, `refusal`, `structured`) keeps only its first part (where it began) and its
 *   structured progress, fields and path updates are dropped: the event holds the whole.
 * - `snapshot` events in `events` are read as the events they hold.
 *
 * O(n) in the events and their text. The events are not changed (merged events are new objects).
 *
 * @param events - consecutive events of one stream, from any point (the first event of the stream
 * or later: a call begun before them keeps its events).
 * @example
 * ```ts
 * // A client that resumes with Last-Event-ID: 0 gets the turn so far as one event, then the rest.
 * const snapshot: SnapshotEvent = { type: 'snapshot', events: compactEvents(kept), lastId: kept.length };
 * ```
 */
export function compactEvents(events: readonly PipelineEvent[]): PipelineEvent[] {
  const flat = flatten(events, []);
  // The slot of each call id, for the field events and path updates that carry no index.
  const callSlots = new Map<string, number>();
  // Each slot's final events, in order.
  const finals = new Map<number, Final[]>();
  for (let at = 0; at < flat.length; at++) {
    const event = flat[at] as PipelineEvent & Members;
    if (typeof event.index === 'number' && typeof event.toolCallId === 'string' && event.toolCallId !== '' && !callSlots.has(event.toolCallId)) {
      callSlots.set(event.toolCallId, event.index);
    }
    const kind = finalKind(event.type);
    if (kind === undefined || typeof event.index !== 'number') continue;
    let list = finals.get(event.index);
    if (list === undefined) finals.set(event.index, (list = []));
    list.push({ at, kind, id: typeof event.toolCallId === 'string' ? event.toolCallId : '' });
  }
  // Per slot: the next final event (by position in `finals`), and whether its first part was kept.
  const next = new Map<number, number>();
  const firstKept = new Set<string>();
  const out: Array<PipelineEvent | Lane> = [];
  /** The open lanes, by stream. */
  const lanes = new Map<string, Lane>();
  const close = (owner: string): void => {
    for (const [stream, lane] of lanes) if (owner === '*' || lane.owner === owner || lane.owner === '*') lanes.delete(stream);
  };

  for (let at = 0; at < flat.length; at++) {
    const event = flat[at] as PipelineEvent;
    const members = event as Members;
    const slot =
      typeof members.index === 'number'
        ? members.index
        : typeof members.toolCallId === 'string' && members.toolCallId !== ''
          ? callSlots.get(members.toolCallId)
          : undefined;
    if (slot !== undefined) {
      const list = finals.get(slot);
      if (list !== undefined) {
        let i = next.get(slot) ?? 0;
        while (i < list.length && (list[i] as Final).at < at) i++;
        next.set(slot, i);
        const final = list[i];
        if (final !== undefined && final.at > at) {
          const fate = streamedInto(event, final);
          if (fate === 'drop') continue;
          if (fate === 'first') {
            const key = `${slot}\u0000${final.at}`;
            if (firstKept.has(key)) continue;
            firstKept.add(key);
            close(`s${slot}`);
            out.push(event);
            continue;
          }
        }
      }
    }
    const owner = ownerOf(members, callSlots);
    const piece = pieceOf(event, owner);
    if (piece === undefined || piece.text === '') {
      close(owner);
      out.push(event);
      continue;
    }
    const lane = lanes.get(piece.stream);
    if (lane !== undefined && lane.target === piece.target) {
      lane.texts.push(piece.text);
      continue;
    }
    const opened = new Lane(event, piece);
    lanes.set(piece.stream, opened);
    out.push(opened);
  }
  return out.map((item) => (item instanceof Lane ? item.event() : item));
}
