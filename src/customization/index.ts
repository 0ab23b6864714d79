// Composition of the customization services (issue 6): built once in src/services.ts.
import { join } from 'node:path';
import type { Store } from '../store/store.js';
import type { Logger } from '../lib/logger.js';
import { DatabaseByteStore } from '../store/byte-store.js';
import { DiskByteStore } from '../store/disk-byte-store.js';
import { memoryFileNaming } from './memories/memory-files.js';
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
  /** What the translation core calls per translation (see translate-hook.ts). */
  customization: TranslateCustomization;
}

export interface CustomizationOptions {
  dataDir: string;
  logger: Logger;
  now?: () => number;
  /** Where translation-memory job files live (TOLK_DOCUMENT_STORE): this node's disk or the database. */
  files?: 'disk' | 'database';
  /** Lease of a running translation-memory job (TOLK_DOCUMENT_LEASE_MS). */
  leaseMs?: number;
}

export async function buildCustomization(store: Store, options: CustomizationOptions): Promise<Customization> {
  const now = options.now ?? Date.now;
  const files =
    options.files === 'database'
      ? new DatabaseByteStore(store.db, now)
      : new DiskByteStore(join(options.dataDir, 'translation-memories'), memoryFileNaming);
  const memories = new MemoryService(store.repositories.memories, {
    files,
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    // the job files' keys derive from the server's own secret (HKDF with their own label, so no key is shared)
    fileSecret: await store.repositories.serverSecrets.serverSecret('url_signing'),
    now,
    logger: options.logger,
    onError: (err) => options.logger.error({ err }, 'translation memory job failed'),
  });
  // Jobs whose node died are taken over (or end `failed` with a message), so clients polling them are never left waiting.
  await memories.recover();
  const glossaries = new GlossaryService(store.repositories.glossaries, now);
  const styleRules = new StyleRuleService(store.repositories.styleRules, now);
  return { glossaries, styleRules, memories, customization: new TranslateCustomization(glossaries, styleRules, memories) };
}
