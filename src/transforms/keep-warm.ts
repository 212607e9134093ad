/**
 * What a full garbage collection must not take from the next call. Internal.
 *
 * V8 optimises a function for the hidden classes of the objects it has seen, and holds those
 * classes only weakly: the class an object reaches by getting its fields one by one (an instance
 * of a class with fields, a record `JSON.parse` builds) lives only while some object has it. The
 * optimised code of a closure (the functions an adapter is made of, one set per decoder) is held
 * only by the closures themselves. So when every decoder and builder of a process has been
 * collected, a full collection drops those classes and that code: V8 deoptimises every method
 * optimised for them, and the next call runs in the interpreter until V8 has optimised it again
 * (`npm run bench`, "first run after a full GC": the synchronous core of provider → turn took
 * 1.6–2.0× its warm time).
 *
 * Keeping the last instance that ended — its input buffers already released, so a few hundred
 * bytes — keeps the classes and the code alive for the next one. One per key (a decoder per
 * provider, since each provider's adapter has its own code), replaced by the next that ends. The
 * stream shells (`Stage`'s transformer, the chain runner, `fromResponse`'s source) are classes
 * rather than closures made per stream, so their code belongs to methods that live as long as the
 * module, and keep an idle instance made at load for their hidden class: a shell that ended holds
 * the cores of its chain, which may hold the user's objects (a validator), so it is not kept.
 *
 * The web streams themselves (the runtime's `ReadableStream`, `TransformStream`, their readers and
 * pipes) lose their optimised code at a full GC the same way, and no stage can keep that.
 *
 * @module
 */

const warm = new Map<unknown, object>();

/**
 * Keep `instance`, which has ended and holds no input, as the one kept for `key` (its class, or
 * for a decoder its provider's name). Internal.
 */
export function keepWarm(key: unknown, instance: object): void {
  warm.set(key, instance);
}
