/** What the AI SDK's servers (ai-sdk-5.mjs, ai-sdk-6.mjs, ai-sdk-7.mjs) are given by serve.mjs. */
export interface AiSdkServerOptions {
  /** The `fetch` that reaches the Messages API (the recorded model replays there). */
  readonly fetch?: typeof fetch | undefined;
  /** An Anthropic API key. */
  readonly apiKey?: string | undefined;
  /**
   * Tools the server declares besides `write_file`, by name: their input's JSON schema. The tests
   * replay recorded streams whose calls are to other tools; the AI SDK fails a call to a tool it
   * was not given.
   */
  readonly moreTools?: Readonly<Record<string, object>> | undefined;
}
