/**
 * What a full garbage collection must not take from the next call. Internal.
 *
 * V8 optimises a function for the hidden classes of the objects it has seen, and holds those
 * classes only weakly: the class an object reaches by getting its fields one by one (an instance
 * of a class with fields, a record `JSON.parse` builds) lives only while some object has it. The
 * optimised code of a closure (the functions a provider adapter is made of, one set per decoder)
 * is held only by the closures themselves. So when every parser, decoder and builder of a process
 * has been collected, a full collection drops those classes and that code: V8 deoptimises every
 * function optimised for them ("weak objects"), and the next call runs in the interpreter until V8
 * has optimised it again. A server that handles one call at a time between collections meets
 * exactly this pattern. Measured: after a few such cycles the JSON engine's re-optimised code
 * settled markedly slower (the long string at 16-character chunks: 18 ms per MB instead of 6.5),
 * and the synchronous core of provider → turn ran its first call after a collection at 1.6–2.0×
 * its warm time (`npm run bench`, "first run after a full GC").
 *
 * Two ways to keep them, a few hundred bytes each:
 * - {@link retainHiddenClass}: an idle instance made at load, kept for the program's life. Enough
 *   for a class whose code is its methods.
 * - {@link retainLast}: the last instance that ended, replaced by the next. For what builds
 *   closures per instance (a decoder's adapter), whose code only a live instance keeps. Only
 *   instances that hold no input any more are passed: a stream shell that ended still holds the
 *   cores of its chain, which may hold the user's objects (a validator), so it is not kept.
 *
 * The web streams themselves (the runtime's `ReadableStream`, `TransformStream`, their readers and
 * pipes) lose their optimised code at a full GC the same way, and nothing here can keep that.
 *
 * @module
 */

const retained: object[] = [];
const last = new Map<unknown, object>();

/** Keep `instance` (and so its hidden class) alive for the program's life. Internal. */
export function retainHiddenClass(instance: object): void {
  retained.push(instance);
}

/**
 * Keep `instance`, which has ended and holds no input, as the one kept for `key` (its class, or
 * for a decoder its provider's name), in place of the previous one. Internal.
 */
export function retainLast(key: unknown, instance: object): void {
  last.set(key, instance);
}
