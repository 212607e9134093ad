/** What serve.mjs gives a recipe handler. */
export interface RecipeServerOptions {
  /** The `fetch` of the Anthropic provider: the stand-in model, a scripted one, or the network. */
  readonly fetch?: typeof fetch;
  /** An Anthropic API key (not needed by the stand-in model). */
  readonly apiKey?: string | undefined;
}
