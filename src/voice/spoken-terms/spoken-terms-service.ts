// Spoken terms collections (/v3/spoken-terms): named per-account collections holding one term list per language,
// used by voice sessions (spoken_terms_id) to bias transcription towards the terms.
import { ServiceError, invalid, notFound } from '../../lib/errors.js';
import { newUuid } from '../../lib/ids.js';
import type { SpokenTermsRepository, SpokenTermsRow, TermListInfo, TermListRow } from '../../store/repositories/spoken-terms-repository.js';
import { parseTermList } from './term-list.js';

/** Collections an account may hold (the reference limits them per plan). */
export const MAX_COLLECTIONS_PER_ACCOUNT = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TermListSummary {
  lang: string;
  entryCount: number;
}

export interface SpokenTerms {
  id: string;
  name: string;
  /** By language. */
  termLists: TermListSummary[];
  createdAt: Date;
}

/** A term list as a request gives it: a voice source language (see termListLang) and its terms, one per line. */
export interface TermListInput {
  lang: string;
  entries: string;
}

export interface SpokenTermsInput {
  name: string;
  termLists: TermListInput[];
}

export class SpokenTermsService {
  constructor(
    private readonly repo: SpokenTermsRepository,
    private readonly now: () => number = Date.now,
  ) {}

  private view(row: SpokenTermsRow, lists: TermListInfo[]): SpokenTerms {
    return {
      id: row.id,
      name: row.name,
      termLists: [...lists].sort((a, b) => a.lang.localeCompare(b.lang)).map((l) => ({ lang: l.lang, entryCount: Number(l.entry_count) })),
      createdAt: new Date(Number(row.created_at)),
    };
  }

  /** The terms' content rules (term-list.ts). */
  private parseList(id: string, input: TermListInput, at: number): TermListRow {
    const terms = parseTermList(input.entries, input.lang);
    return { spoken_terms_id: id, lang: input.lang, entries: terms.join('\n'), entry_count: terms.length, updated_at: at };
  }

  async create(accountId: string, input: SpokenTermsInput): Promise<SpokenTerms> {
    const at = this.now();
    const id = newUuid();
    const lists = input.termLists.map((l) => this.parseList(id, l, at));
    const langs = new Set(lists.map((l) => l.lang));
    if (langs.size !== lists.length) throw invalid('Each language may appear in only one term list of a spoken terms collection.');
    if ((await this.repo.count(accountId)) >= MAX_COLLECTIONS_PER_ACCOUNT) {
      throw new ServiceError('quota_exceeded', `Spoken Terms quota exhausted: an account can hold at most ${MAX_COLLECTIONS_PER_ACCOUNT} spoken terms collections.`);
    }
    const row: SpokenTermsRow = { id, account_id: accountId, name: input.name, created_at: at };
    await this.repo.create(row, lists);
    return this.view(row, lists);
  }

  private async row(accountId: string, id: string): Promise<SpokenTermsRow> {
    const row = UUID.test(id) ? await this.repo.get(accountId, id.toLowerCase()) : undefined;
    if (!row) throw notFound('Spoken terms not found');
    return row;
  }

  async get(accountId: string, id: string): Promise<SpokenTerms> {
    const row = await this.row(accountId, id);
    return this.view(row, await this.repo.listInfo([row.id]));
  }

  async list(accountId: string): Promise<SpokenTerms[]> {
    const rows = await this.repo.list(accountId);
    const infos = await this.repo.listInfo(rows.map((r) => r.id));
    return rows.map((r) => this.view(r, infos.filter((i) => i.spoken_terms_id === r.id)));
  }

  /** `lang`: a voice source language (see termListLang). */
  async entries(accountId: string, id: string, lang: string): Promise<{ lang: string; entries: string }> {
    const row = await this.row(accountId, id);
    const list = await this.repo.termList(row.id, lang);
    if (!list) throw notFound(`Spoken terms ${row.id} have no term list for '${lang}'.`);
    return { lang, entries: list.entries };
  }

  /** PUT term-lists: replaces or creates the list of one language. */
  async putList(accountId: string, id: string, input: TermListInput): Promise<TermListSummary> {
    const row = await this.row(accountId, id);
    const list = this.parseList(row.id, input, this.now());
    await this.repo.putList(list);
    return { lang: list.lang, entryCount: list.entry_count };
  }

  async delete(accountId: string, id: string): Promise<void> {
    const row = await this.row(accountId, id);
    if (!(await this.repo.delete(accountId, row.id))) throw notFound('Spoken terms not found');
  }

  /**
   * For a voice session: the terms of `lang` in the collection (empty when it has no list for the language). 404 when
   * the collection does not exist for the account.
   */
  async termsFor(accountId: string, id: string, lang: string): Promise<string[]> {
    if (!UUID.test(id)) throw invalid("Value for 'spoken_terms_id' not supported: it must be a UUID.");
    const row = await this.repo.get(accountId, id.toLowerCase());
    if (!row) throw notFound('Spoken terms not found');
    const list = await this.repo.termList(row.id, lang);
    return list && list.entries !== '' ? list.entries.split('\n') : [];
  }
}
