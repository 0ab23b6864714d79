// What the language model did, told to whoever watches (the metrics): each engine call's outcome, each model call's
// tokens and wait for a slot. The engine calls it at its boundary only; it never changes what the engine does.

/** translate: the engine's own pairs; improve: rephrase and correct; post_edit: rewrites of another engine's output. */
export type LlmOperation = 'translate' | 'improve' | 'post_edit';

/**
 * How an engine call ended. refused: the model answered, but its output failed the checks (placeholders lost,
 * commentary added, a text missing), so it was not used; the other failures are EngineError kinds.
 */
export type LlmOutcome = 'ok' | 'refused' | 'timeout' | 'overloaded' | 'busy' | 'unavailable' | 'failed' | 'aborted';

export interface LlmObserver {
  /** An engine call (one request's texts, in one or more model calls) ended. */
  request(operation: LlmOperation, outcome: LlmOutcome): void;
  /** A model call ended; its tokens where the backend counts them (a remote server may not). */
  tokens(input: number, output: number): void;
  /** How long a model call waited for a slot (the engine's queue and the backend's, together) before it ran. */
  waited(seconds: number): void;
}
