/**
 * The turn builder's progress mode (`progress: true`), which `TurnBuilder` gives its core: each
 * slot's scanner reports to a fragment collector, and each fragment goes to the slot's aggregator
 * (its value) and out as a `tool-call-progress` or `structured-progress` event. `TurnStore` reads
 * raw argument text so too; the stores of the bindings and of the AI SDK chat transport parse it
 * without fragments (`store/scanned-input.ts`), so a page with one of them bundles none of this.
 * Internal.
 *
 * @module
 */
import { clear } from '../core.ts';
import { FragmentAggregator } from '../json/fragment-aggregator.ts';
import { FragmentCollector } from '../json/incremental-json-parser.ts';
import { JsonScanner } from '../json/scanner.ts';
import type { PipelineEvent, StreamFragment } from '../types.ts';
import type { ProgressReading } from './turn-builder.ts';

/** Progress events of the fragments each chunk of arguments makes. */
export const FRAGMENT_PROGRESS: ProgressReading = {
  scanner(slot, limits) {
    const collector = new FragmentCollector();
    const scanner = new JsonScanner(collector, limits);
    collector.scanner = scanner;
    slot.collector = collector;
    slot.value = new FragmentAggregator();
    return scanner;
  },

  report(slot, out: PipelineEvent[]) {
    const fragments = (slot.collector as FragmentCollector).out;
    if (fragments.length === 0) return;
    const aggregator = slot.value as FragmentAggregator;
    // The collector's own array, emptied for the next chunk (its capacity kept: no new one per delta).
    try {
      for (let i = 0; i < fragments.length; i++) {
        const fragment = fragments[i] as StreamFragment;
        aggregator.push(fragment);
        out.push(
          slot.kind === 'structured'
            ? { type: 'structured-progress', index: slot.index, fragment }
            : slot.provider
              ? { type: 'tool-call-progress', index: slot.index, toolCallId: slot.id, toolName: slot.name, providerExecuted: true, fragment }
              : { type: 'tool-call-progress', index: slot.index, toolCallId: slot.id, toolName: slot.name, fragment },
        );
      }
    } finally {
      clear(fragments);
    }
  },
};
