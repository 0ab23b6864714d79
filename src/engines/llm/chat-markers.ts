// What marks the structure of a chat for a model: the tokens chat templates open and close turns with, and role
// labels. Prompts take them out of what users wrote; answer checks refuse an answer that leaks them.

/**
 * Turn tokens of the common chat templates (ChatML `<|im_start|>`, Llama `[INST]` and `<<SYS>>`, Gemma
 * `<start_of_turn>`, `<s>`/`</s>`) and the `###` headers of instruction formats (`### Response`).
 */
export const CHAT_TEMPLATE_TOKENS = /<\|[^<>|\n]{0,40}\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:start_of_turn|end_of_turn|s)>|#{3,}\s*(?:instruction|response|input|system|user|assistant)\b/gi;

/** The roles a chat's turns are labelled with. */
export const ROLE_WORDS = 'system|user|assistant|developer|human|model|tool';
