// Composition of the customization services (issue 6): built once in src/services.ts.
import type { Store } from '../store/store.js';
import type { Logger } from '../lib/logger.js';
import { GlossaryRepository } from '../store/glossary-repository.js';
import { StyleRuleRepository } from '../store/style-rule-repository.js';
import { MemoryRepository } from '../store/memory-repository.js';
import { GlossaryService } from './glossaries/glossary-service.js';
import { StyleRuleService } from './style-rules/style-rule-service.js';
import { MemoryService } from './memories/memory-service.js';
import { TranslateCustomization } from './translate-hook.js';

export { GlossaryService } from './glossaries/glossary-service.js';
export { applyGlossary, type ProtectedSegments } from './glossaries/protect.js';
export { StyleRuleService } from './style-rules/style-rule-service.js';
export { applyStyleRules } from './style-rules/deterministic-rules.js';
export { MemoryService } from './memories/memory-service.js';
export { TranslateCustomization, type SegmentHook, type CustomizationRequest } from './translate-hook.js';

export interface Customization {
  glossaries: GlossaryService;
  styleRules: StyleRuleService;
  memories: MemoryService;
  /** What TranslateService calls per request (see translate-hook.ts). */
  customization: TranslateCustomization;
}

export async function buildCustomization(store: Store, options: { dataDir: string; logger: Logger; now?: () => number }): Promise<Customization> {
  const now = options.now ?? Date.now;
  const memories = new MemoryService(new MemoryRepository(store.db), {
    dataDir: options.dataDir,
    // the job files' keys derive from the server's own secret (HKDF with their own label, so no key is shared)
    fileSecret: await store.serverSecret('url_signing'),
    now,
    onError: (err) => options.logger.error({ err }, 'translation memory job failed'),
  });
  // Jobs a crash interrupted end `failed` with a message, so clients polling them are never left waiting.
  await memories.recover();
  const glossaries = new GlossaryService(new GlossaryRepository(store.db), now);
  const styleRules = new StyleRuleService(new StyleRuleRepository(store.db), now);
  return { glossaries, styleRules, memories, customization: new TranslateCustomization(glossaries, styleRules, memories) };
}
