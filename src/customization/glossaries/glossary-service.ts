// Glossary resources of both API generations over one model, and their compilation into matchers for translation.
import { ServiceError, invalid, notFound, unsupportedValue } from '../../lib/errors.js';
import { newUuid } from '../../lib/ids.js';
import type { GlossaryRepository, GlossaryRow, DictionaryInfo } from '../../store/repositories/glossary-repository.js';
import { MAX_TERM_BYTES, fromTsv, mergeEntries, parseEntries, toTsv, type EntriesFormat } from './entries.js';
import { GlossaryMatcher } from './matcher.js';

/** Glossary languages of the reference (3.11 enum). */
export const GLOSSARY_LANGUAGES = [
  'ar', 'bg', 'cs', 'da', 'de', 'el', 'en', 'es', 'et', 'fi', 'fr', 'he', 'hu', 'id', 'it', 'ja', 'ko', 'lt', 'lv', 'nb',
  'nl', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sv', 'th', 'tr', 'uk', 'vi', 'zh',
] as const;
const LANGS = new Set<string>(GLOSSARY_LANGUAGES);
export const MAX_GLOSSARIES_PER_ACCOUNT = 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** One dictionary as a request gives it: its pair (glossary languages, see glossaryLang) and its entries as text. */
export interface DictionaryDraft {
  sourceLang: string;
  targetLang: string;
  entries: string;
  format: EntriesFormat;
}

export interface GlossaryInput {
  name: string;
  dictionaries: DictionaryDraft[];
}

/** What a glossary edit changes: its name, and dictionaries merged into the ones of their pairs. */
export interface GlossaryChanges {
  name?: string;
  dictionaries?: DictionaryDraft[];
}

export interface DictionarySummary {
  sourceLang: string;
  targetLang: string;
  entryCount: number;
}

export interface Glossary {
  id: string;
  name: string;
  createdAt: Date;
  /** Edited through the v3 API (v2 then refuses to delete it). */
  v3Edited: boolean;
  /** In the order they were given. */
  dictionaries: DictionarySummary[];
}

/** The entries of one dictionary as canonical TSV. */
export interface DictionaryEntries {
  sourceLang: string;
  targetLang: string;
  entries: string;
}

export interface CompiledDictionary {
  source: string;
  target: string;
  matcher: GlossaryMatcher;
}

/** Glossary language code: lower case, variants (en-us, pt-br, zh-hans) reduced to their base. */
export function glossaryLang(value: unknown, name: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`Parameter '${name}' not specified`);
  const base = value.trim().toLowerCase().split(/[-_]/)[0]!;
  if (!LANGS.has(base)) throw unsupportedValue(name);
  return base;
}

/** A glossary name as the reference words its errors. */
export function glossaryName(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid("Parameter 'name' not specified");
  if (value.trim().length === 0) throw invalid("Value for 'name' not supported.");
  if (Buffer.byteLength(value, 'utf8') > MAX_TERM_BYTES) throw invalid(`Glossary name exceeds ${MAX_TERM_BYTES} UTF-8 bytes.`);
  return value;
}

export function checkGlossaryId(id: string, name = 'glossary_id'): string {
  if (!UUID.test(id)) throw unsupportedValue(name);
  return id.toLowerCase();
}

interface ParsedDictionary {
  source: string;
  target: string;
  entries: ReturnType<typeof parseEntries>;
}

/** The entries' content rules (entries.ts); the pair and the format were checked where the request was read. */
function parseDictionary(d: DictionaryDraft): ParsedDictionary {
  const entries = parseEntries(d.entries, d.format, { source: d.sourceLang, target: d.targetLang });
  if (entries.length === 0) throw invalid('Invalid glossary entries provided');
  return { source: d.sourceLang, target: d.targetLang, entries };
}

export class GlossaryService {
  /**
   * Compiled matchers by glossary id + pair + dictionary update time (cheap to check, rebuilt only on change); an edit
   * on any node also drops them through the change feed (two edits within one millisecond share an update time).
   */
  private readonly compiled = new Map<string, { stamp: number; matcher: GlossaryMatcher }>();

  constructor(
    private readonly repo: GlossaryRepository,
    private readonly now: () => number = Date.now,
  ) {
    repo.changes.subscribe((change) => {
      if (change.kind === 'reset') this.compiled.clear();
      else if (change.kind === 'glossary') for (const key of this.compiled.keys()) if (key.startsWith(`${change.id}:`)) this.compiled.delete(key);
    });
  }

  private async view(row: GlossaryRow, infos?: DictionaryInfo[]): Promise<Glossary> {
    const dicts = infos ?? (await this.repo.dictionaryInfo([row.id]));
    return {
      id: row.id,
      name: row.name,
      createdAt: new Date(Number(row.created_at)),
      v3Edited: Number(row.v3_edited) === 1,
      // in the order they were given (the repository keeps it)
      dictionaries: dicts.map((d) => ({ sourceLang: d.source_lang, targetLang: d.target_lang, entryCount: Number(d.entry_count) })),
    };
  }

  /** A glossary with its dictionaries (v3 may create one without any: the clients add them afterwards). */
  async create(accountId: string, input: GlossaryInput): Promise<Glossary> {
    const parsed = input.dictionaries.map((d) => parseDictionary(d));
    const pairs = new Set(parsed.map((d) => `${d.source}-${d.target}`));
    if (pairs.size !== parsed.length) throw invalid('Each language pair may appear in only one dictionary of a glossary.');
    if ((await this.repo.count(accountId)) >= MAX_GLOSSARIES_PER_ACCOUNT) {
      throw new ServiceError('forbidden', `Glossary limit reached: an account can hold at most ${MAX_GLOSSARIES_PER_ACCOUNT} glossaries.`);
    }
    const at = this.now();
    const row: GlossaryRow = { id: newUuid(), account_id: accountId, name: input.name, v3_edited: 0, created_at: at };
    const rows = parsed.map((d) => ({
      glossary_id: row.id,
      source_lang: d.source,
      target_lang: d.target,
      entries: toTsv(d.entries),
      entry_count: d.entries.length,
      updated_at: at,
    }));
    await this.repo.create(row, rows);
    return this.view(row, rows);
  }

  async get(accountId: string, id: string): Promise<Glossary> {
    return this.view(await this.row(accountId, id));
  }

  private async row(accountId: string, id: string): Promise<GlossaryRow> {
    const row = UUID.test(id) ? await this.repo.get(accountId, id.toLowerCase()) : undefined;
    if (!row) throw notFound('Glossary not found');
    return row;
  }

  async list(accountId: string): Promise<Glossary[]> {
    const rows = await this.repo.list(accountId);
    const infos = await this.repo.dictionaryInfo(rows.map((r) => r.id));
    return Promise.all(rows.map((r) => this.view(r, infos.filter((i) => i.glossary_id === r.id))));
  }

  /** v2 delete refuses glossaries edited through v3, as the reference does. */
  async delete(accountId: string, id: string, generation: 'v2' | 'v3'): Promise<void> {
    const row = await this.row(accountId, id);
    if (generation === 'v2' && Number(row.v3_edited) === 1) {
      throw invalid('This glossary was edited through the v3 glossary API; delete it with DELETE /v3/glossaries/{glossary_id}.');
    }
    await this.repo.delete(accountId, row.id);
  }

  /** PATCH: rename and/or merge entries of at most one dictionary into the existing one of its pair. */
  async patch(accountId: string, id: string, changes: GlossaryChanges): Promise<Glossary> {
    const row = await this.row(accountId, id);
    const { name: newName, dictionaries } = changes;
    if (dictionaries && dictionaries.length > 1) throw invalid('Only one dictionary can be edited per request.');
    if (newName === undefined && (!dictionaries || dictionaries.length === 0)) throw invalid("Parameter 'name' or 'dictionaries' not specified");
    const rows = [];
    for (const d of dictionaries ?? []) {
      const parsed = parseDictionary(d);
      const old = await this.repo.dictionary(row.id, parsed.source, parsed.target);
      const merged = old ? mergeEntries(fromTsv(old.entries), parsed.entries) : parsed.entries;
      const tsv = toTsv(merged);
      if (Buffer.byteLength(tsv, 'utf8') > 10 * 1024 * 1024) {
        throw new ServiceError('payload_too_large', 'Glossary entries exceed the maximum size of 10 MiB per dictionary.');
      }
      rows.push({ glossary_id: row.id, source_lang: parsed.source, target_lang: parsed.target, entries: tsv, entry_count: merged.length, updated_at: this.now() });
    }
    await this.repo.update(row.id, { ...(newName !== undefined ? { name: newName } : {}), v3Edited: true }, rows);
    return this.get(accountId, row.id);
  }

  /** PUT dictionaries: replaces or creates the dictionary of one pair. */
  async putDictionary(accountId: string, id: string, input: DictionaryDraft): Promise<DictionarySummary> {
    const row = await this.row(accountId, id);
    const parsed = parseDictionary(input);
    const d = { glossary_id: row.id, source_lang: parsed.source, target_lang: parsed.target, entries: toTsv(parsed.entries), entry_count: parsed.entries.length, updated_at: this.now() };
    await this.repo.update(row.id, { v3Edited: true }, [d]);
    return { sourceLang: d.source_lang, targetLang: d.target_lang, entryCount: d.entry_count };
  }

  /** `source`, `target`: glossary languages (see glossaryLang). */
  async deleteDictionary(accountId: string, id: string, source: string, target: string): Promise<void> {
    const row = await this.row(accountId, id);
    if (!(await this.repo.deleteDictionary(row.id, source, target))) throw notFound('Dictionary not found');
  }

  /** Entries of one pair as canonical TSV. */
  /** `source`, `target`: glossary languages (see glossaryLang). */
  async entries(accountId: string, id: string, source: string, target: string): Promise<DictionaryEntries> {
    const row = await this.row(accountId, id);
    const d = await this.repo.dictionary(row.id, source, target);
    if (!d) throw notFound('Dictionary not found');
    return { sourceLang: source, targetLang: target, entries: d.entries };
  }

  /**
   * For translation: checks every id, requires a dictionary for the pair in each glossary (target variants use the
   * base dictionary), and returns compiled matchers in request order. Errors use the reference's messages.
   */
  async resolve(accountId: string, ids: readonly string[], source: string, target: string, paramName = 'glossary_id'): Promise<CompiledDictionary[]> {
    const s = source.toLowerCase().split('-')[0]!;
    const t = target.toLowerCase().split('-')[0]!;
    const out: CompiledDictionary[] = [];
    for (const raw of ids) {
      const id = checkGlossaryId(raw, paramName);
      const row = await this.repo.get(accountId, id);
      if (!row) throw notFound('Glossary not found');
      const infos = await this.repo.dictionaryInfo([id]);
      const info = infos.find((d) => d.source_lang === s && d.target_lang === t);
      if (!info) throw invalid(`No dictionary found for language pair ${s}-${t} in glossary ${id}.`);
      const key = `${id}:${s}:${t}`;
      const stamp = Number(info.updated_at);
      let cached = this.compiled.get(key);
      if (!cached || cached.stamp !== stamp) {
        const dict = await this.repo.dictionary(id, s, t);
        cached = { stamp, matcher: new GlossaryMatcher(fromTsv(dict?.entries ?? '')) };
        this.compiled.set(key, cached);
        if (this.compiled.size > 64) this.compiled.delete(this.compiled.keys().next().value!);
      }
      out.push({ source: s, target: t, matcher: cached.matcher });
    }
    return out;
  }
}

/** All source-target pairs glossaries support (for /v2/glossary-language-pairs). */
export function glossaryLanguagePairs(): { sourceLang: string; targetLang: string }[] {
  const out = [];
  for (const s of GLOSSARY_LANGUAGES) for (const t of GLOSSARY_LANGUAGES) if (s !== t) out.push({ sourceLang: s, targetLang: t });
  return out;
}
