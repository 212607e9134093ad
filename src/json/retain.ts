/**
 * Keeps one idle instance of each engine class reachable for the life of the program.
 *
 * V8 holds an object's hidden class only while some object has it. When the last parser is
 * collected, the next full GC drops the classes of its scanner and builder and deoptimises every
 * function optimised for them ("weak objects"), and the next parser starts in the interpreter.
 * After a few such cycles the re-optimised code settles markedly slower: on the long-string
 * benchmark at 16-character chunks, pushing took 18 ms per MB instead of 6.5 ms. A server that
 * parses one tool call at a time between collections meets exactly this pattern. One idle
 * instance per class (a few hundred bytes) keeps the classes, and with them the optimised code.
 *
 * @module
 */

const retained: object[] = [];

/** Keep `instance` (and so its hidden class) alive. Internal. */
export function retainHiddenClass(instance: object): void {
  retained.push(instance);
}
