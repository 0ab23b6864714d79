// Public surface of the Bergamot (Firefox Translations) engine.

export { BergamotEngine, defaultMemoryBudgetMb, type BergamotEngineOptions } from './bergamot-engine.js';
export type { BergamotPoolStats } from './worker-pool.js';
export { inspectModelDir, scanModelsDir, readModelFile, MODEL_META_FILE, type ModelInfo, type BadModelDir } from './model-dir.js';
export { ModelFormatError } from './formats.js';
