// The language-model engine's public surface.
export { LlmEngine, RefusedOutputError, DEFAULT_LLM_LANGUAGES, isTextImprover, type LlmEngineOptions, type TextImprover, type PostEditResult } from './llm-engine.js';
export { LocalLanguageModel, llmModelsDir, type LocalModelOptions, type LocalModelStats } from './local-model.js';
export { PostEditedEngine, REGISTER_TARGETS, type PostEditCounts } from './post-editing.js';
export { ChatClient, type ChatBackend, type ChatClientOptions, type ChatMessage } from './chat-client.js';
export type { ImprovePromptInput, WritingStyle, WritingTone } from './prompts.js';
export { protectedTokens, placeholderProblems } from './segment-checks.js';
export type { LlmObserver, LlmOperation, LlmOutcome } from './llm-observer.js';
