// Every repository, built once over one connection; the composition root takes them from here.
import type { StoreConnection } from '../connection.js';
import { AccountsRepository } from './accounts-repository.js';
import { AdminRepository } from './admin-repository.js';
import { DocumentRepository } from './document-repository.js';
import { GlossaryRepository } from './glossary-repository.js';
import { JobStatsRepository } from './job-stats-repository.js';
import { MemoryRepository } from './memory-repository.js';
import { ServerSecretsRepository } from './server-secrets-repository.js';
import { SpokenTermsRepository } from './spoken-terms-repository.js';
import { StyleRuleRepository } from './style-rule-repository.js';
import { UsageRepository } from './usage-repository.js';
import { VoiceSessionRepository } from './voice-session-repository.js';

export function createRepositories(connection: StoreConnection) {
  return {
    accounts: new AccountsRepository(connection),
    admin: new AdminRepository(connection),
    documents: new DocumentRepository(connection),
    glossaries: new GlossaryRepository(connection),
    jobStats: new JobStatsRepository(connection),
    memories: new MemoryRepository(connection),
    serverSecrets: new ServerSecretsRepository(connection),
    spokenTerms: new SpokenTermsRepository(connection),
    styleRules: new StyleRuleRepository(connection),
    usage: new UsageRepository(connection),
    voiceSessions: new VoiceSessionRepository(connection),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
