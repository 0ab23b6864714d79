// Composition of the customization services (issue 6): built once in src/services.ts.
import type { Logger } from '../lib/logger.js';
import type { ByteStore } from '../store/byte-store.js';
import type { GlossaryRepository } from '../store/repositories/glossary-repository.js';
import type { MemoryRepository } from '../store/repositories/memory-repository.js';
import type { StyleRuleRepository } from '../store/repositories/style-rule-repository.js';
import { GlossaryService } from './glossaries/glossary-service.js';
import { StyleRuleService } from './style-rules/style-rule-service.js';
import { MemoryService } from './memories/memory-service.js';
import { TranslateCustomization } from './translate-hook.js';

export { GlossaryService } from './glossaries/glossary-service.js';
export { applyGlossary, type ProtectedSegments } from './glossaries/protect.js';
export { StyleRuleService } from './style-rules/style-rule-service.js';
export { applyStyleRules } from './style-rules/deterministic-rules.js';
export { MemoryService } from './memories/memory-service.js';
export { memoryFileNaming } from './memories/memory-files.js';
export { TranslateCustomization, type SegmentHook, type CustomizationRequest } from './translate-hook.js';

export interface Customization {
  glossaries: GlossaryService;
  styleRules: StyleRuleService;
  memories: MemoryService;
  /** What the translation core calls per translation (see translate-hook.ts). */
  customization: TranslateCustomization;
}

/** The repositories the customization services keep their rows in. */
export interface CustomizationRepositories {
  glossaries: GlossaryRepository;
  styleRules: StyleRuleRepository;
  memories: MemoryRepository;
}

export interface CustomizationOptions {
  logger: Logger;
  now?: () => number;
  /** Where translation-memory job files live (TOLK_DOCUMENT_STORE): this node's disk or the database. */
  memoryFiles: ByteStore;
  /** The server secret the job files' keys derive from (HKDF with their own label, so no key is shared). */
  memoryFileSecret: Buffer;
  /** Lease of a running translation-memory job (TOLK_DOCUMENT_LEASE_MS). */
  leaseMs?: number;
}

export async function buildCustomization(repositories: CustomizationRepositories, options: CustomizationOptions): Promise<Customization> {
  const now = options.now ?? Date.now;
  const memories = new MemoryService(repositories.memories, {
    files: options.memoryFiles,
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    fileSecret: options.memoryFileSecret,
    now,
    logger: options.logger,
    onError: (err) => options.logger.error({ err }, 'translation memory job failed'),
  });
  // Jobs whose node died are taken over (or end `failed` with a message), so clients polling them are never left waiting.
  await memories.recover();
  const glossaries = new GlossaryService(repositories.glossaries, now);
  const styleRules = new StyleRuleService(repositories.styleRules, now);
  return { glossaries, styleRules, memories, customization: new TranslateCustomization(glossaries, styleRules, memories) };
}
