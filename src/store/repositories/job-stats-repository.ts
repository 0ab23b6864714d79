// For metrics: document and translation-memory jobs by status, with the creation time of the oldest of each.
import type { Kysely } from 'kysely';
import type { StoreConnection } from '../connection.js';
import type { Database } from '../schema.js';

export interface JobStatsRow {
  kind: 'document' | 'translation_memory';
  status: string;
  count: number;
  oldest: number;
}

export class JobStatsRepository {
  private readonly db: Kysely<Database>;

  constructor(connection: StoreConnection) {
    this.db = connection.db;
  }

  async jobStats(): Promise<JobStatsRow[]> {
    const grouped = (table: 'documents' | 'tm_jobs') =>
      this.db
        .selectFrom(table)
        .select((eb) => ['status', eb.fn.countAll<number>().as('count'), eb.fn.min<number>('created_at').as('oldest')])
        .groupBy('status')
        .execute();
    const [documents, memories] = await Promise.all([grouped('documents'), grouped('tm_jobs')]);
    return [
      ...documents.map((r) => ({ kind: 'document' as const, status: r.status, count: Number(r.count), oldest: Number(r.oldest) })),
      ...memories.map((r) => ({ kind: 'translation_memory' as const, status: r.status, count: Number(r.count), oldest: Number(r.oldest) })),
    ];
  }
}
