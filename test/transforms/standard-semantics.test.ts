/**
 * The differential semantics scenarios of test/runtimes/semantics.ts, run directly in Node: every
 * exported stream, alone and in chains, must be observably a chain of plain `TransformStream`s
 * (issue 19; DESIGN.md property 5). The portable suite runs the same scenarios on every runtime.
 */
import { describe, expect, it } from 'vitest';
import { failureMessage, groupNames, hasChain, runGroup, scenarios, verdict } from '../runtimes/semantics.ts';

describe('standard stream semantics, differentially against identity TransformStreams', () => {
  it('covers chain() and fromResponse(…, ...stages) with a few thousand scenarios', () => {
    expect(hasChain()).toBe(true);
    expect(scenarios().length).toBeGreaterThan(3000);
  });

  for (const group of groupNames()) {
    it(`${group} behaves as a chain of identity TransformStreams`, async () => {
      const outcomes = await runGroup(group);
      for (const { outcome, bug } of verdict(outcomes).known) console.warn(`known difference: ${outcome.scenario.name}\n  ${bug}`);
      expect(failureMessage(outcomes)).toBeUndefined();
    }, 120_000);
  }
});
