// The language-model engine's public surface.
export { LlmEngine, DEFAULT_LLM_LANGUAGES, isTextImprover, type LlmEngineOptions, type TextImprover } from './llm-engine.js';
export { ChatClient, type ChatClientOptions, type ChatMessage } from './chat-client.js';
export type { ImprovePromptInput, WritingStyle, WritingTone } from './prompts.js';
export { protectedTokens, placeholderProblems } from './segment-checks.js';
