// Upgrades: databases as earlier releases left them, opened by today's `tolk serve`. Each fixture is generated here:
// the numbered migrations run up to an old version, then rows go in with plain SQL into the tables as that version
// had them (never through today's repositories, which know only today's tables), with files on disk as the server
// wrote them then. Today's server applies the remaining migrations at start, and every kind of data must be there and
// usable through the API: the old keys authenticate, the glossary, memory, style rule and spoken terms work, an old
// document downloads with its key, usage counts and the analytics rollups (built by migration 0002) are right.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Migrator, sql, type Kysely } from 'kysely';
import { StoreConnection } from '../../src/store/connection.js';
import { migrationsFor } from '../../src/store/migrations/index.js';
import { encryptStream, keyVerifier } from '../../src/documents/crypto.js';
import { freePort, testDatabase, testStoreLocation } from '../helpers/harness.js';
import { Store } from '../../src/store/store.js';
import { startServe, type ServeProcess } from '../helpers/serve-process.js';
import { apiOf, characterCount, checkInstallation, type InstallationData } from '../helpers/installation-data.js';
import { freshPostgresDatabase, type FreshDatabase } from '../helpers/postgres-database.js';

const db = testDatabase();
const OLDEST = '0001_accounts_keys_usage';
/** Before documents moved into the database (0018) and before the rate-limit and voice tables (0015, 0016). */
const MIDDLE = '0012_glossary_dictionary_order';

/** `insert into TABLE (columns) values (...)` in plain SQL. */
async function insert(database: Kysely<any>, table: string, row: Record<string, unknown>): Promise<void> {
  const columns = Object.keys(row);
  await sql`insert into ${sql.id(table)} (${sql.join(columns.map((c) => sql.id(c)))}) values (${sql.join(columns.map((c) => row[c]))})`.execute(database);
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const newSecret = () => randomBytes(32).toString('base64url');

interface OldInstallation extends InstallationData {
  revokedKey: string;
  /** Characters the account used this period, as the old release counted them. */
  characters: number;
}

/** Schema 0001: an account, its admin key, a developer key, a revoked key, usage events and counters. */
async function seedAccounts(database: Kysely<any>, now: number): Promise<OldInstallation> {
  const accountId = randomUUID();
  const created = now - 3_600_000;
  await insert(database, 'accounts', { id: accountId, name: 'Old account', plan: 'pro', features: '[]', character_limit: null, created_at: created });
  const key = async (kind: string, label: string, deactivatedAt: number | null) => {
    const secret = newSecret();
    const id = `${randomUUID()}:${randomUUID()}`;
    await insert(database, 'api_keys', {
      id, account_id: accountId, kind, key_hash: sha256(secret), key_start: secret.slice(0, 4), key_end: secret.slice(-4), label,
      scopes: null, character_limit: null, speech_to_text_ms_limit: null, created_at: created, deactivated_at: deactivatedAt,
    });
    return { id, secret };
  };
  const admin = await key('admin', 'Admin key', null);
  const dev = await key('developer', 'old developer key', null);
  const revoked = await key('developer', 'revoked', now - 60_000);
  const events: [string, number, string | null][] = [['text_translation', 100, null], ['document_translation', 40, null], ['text_translation', 10, 'nightly']];
  for (const [product, units, tag] of events) {
    await insert(database, 'usage_events', { account_id: accountId, key_id: dev.id, product, units, reporting_tag: tag, created_at: now - 1_800_000 });
  }
  for (const subject of [accountId, dev.id]) await insert(database, 'usage_counters', { subject_id: subject, period_start: created, characters: 150, speech_to_text_ms: 0 });
  return { accountId, adminKey: admin.secret, devKey: dev.secret, devKeyId: dev.id, revokedKey: revoked.secret, characters: 150 };
}

/** Schema 0012: 0001's data, and a glossary, a style rule, a memory, spoken terms, and a done document on disk. */
async function seedCustomization(database: Kysely<any>, now: number, dataDir: string): Promise<OldInstallation> {
  const data = await seedAccounts(database, now);
  const owned = { account_id: data.accountId, created_at: now - 600_000 };
  const glossaryId = randomUUID();
  await insert(database, 'glossaries', { id: glossaryId, name: 'Cars', v3_edited: 0, ...owned });
  await insert(database, 'glossary_dictionaries', { glossary_id: glossaryId, source_lang: 'en', target_lang: 'es', entries: 'car\tautomóvil\nboat\tbarca', entry_count: 2, updated_at: owned.created_at, position: 0 });
  const styleId = randomUUID();
  const rules = JSON.stringify({ numbers: { decimal_separator: 'use_comma_as_decimal_separator' } });
  await insert(database, 'style_rules', { id: styleId, name: 'Comma decimals', language: 'es', configured_rules: rules, custom_instructions: '[]', version: 1, updated_at: owned.created_at, ...owned });
  const memoryId = randomUUID();
  await insert(database, 'translation_memories', { id: memoryId, name: 'Printers', source_lang: 'en', target_langs: '["es"]', segment_count: 1, updated_at: owned.created_at, ...owned });
  await insert(database, 'tm_segments', { memory_id: memoryId, target_lang: 'es', source: 'The printer is out of paper.', target: 'La impresora no tiene papel.' });
  const termsId = randomUUID();
  await insert(database, 'spoken_terms', { id: termsId, name: 'Products', ...owned });
  await insert(database, 'spoken_term_lists', { spoken_terms_id: termsId, lang: 'en', entries: 'Tolk\nApertium', entry_count: 2, updated_at: owned.created_at });

  // A translated document waiting for its download: the row, and its result sealed with the client's key in
  // TOLK_DATA_DIR/documents (the only store before migration 0018).
  const documentId = randomBytes(16).toString('hex').toUpperCase();
  const documentKey = randomBytes(32).toString('hex').toUpperCase();
  const result = Buffer.from('La casa es grande.\n');
  const sealed: Buffer[] = [];
  for await (const chunk of Readable.from([result]).pipe(encryptStream(documentKey, 'result'))) sealed.push(chunk as Buffer);
  mkdirSync(join(dataDir, 'documents'), { recursive: true, mode: 0o700 });
  writeFileSync(join(dataDir, 'documents', `${documentId}.result`), Buffer.concat(sealed), { mode: 0o600 });
  await insert(database, 'documents', {
    id: documentId, account_id: data.accountId, key_id: data.devKeyId, status: 'done', format: 'txt', output_format: 'txt',
    source_lang: 'en', target_lang: 'es', formality: 'default', reporting_tag: null, key_verifier: keyVerifier(documentKey, documentId),
    wrapped_key: null, upload_bytes: 19, result_bytes: result.length, billed_characters: 18, charged: 0, error_message: null, attempts: 1,
    lease_owner: null, lease_expires_at: null, segments_total: 1, segments_done: 1, created_at: now - 300_000, started_at: now - 299_000,
    finished_at: now - 298_000, watermark: 0, glossary_ids: '[]', style_id: null, translation_memory_id: null, translation_memory_threshold: null,
  });
  return {
    ...data,
    glossary: { id: glossaryId, tsv: 'car\tautomóvil\nboat\tbarca', source: 'I bought a new car.', term: /automóvil/ },
    memory: { id: memoryId, source: 'The printer is out of paper.', target: 'La impresora no tiene papel.' },
    styleRule: { id: styleId, name: 'Comma decimals' },
    spokenTerms: { id: termsId, lang: 'en', entries: 'Tolk\nApertium' },
    document: { id: documentId, key: documentKey, contains: /La casa es grande/, billedCharacters: 18 },
  };
}

/** The database at `version` exactly (migrations past it not applied), with `seed`'s rows in. */
async function oldDatabase(url: string, version: string, seed: (database: Kysely<any>) => Promise<OldInstallation>): Promise<OldInstallation> {
  const connection = await StoreConnection.open({ url });
  try {
    const migrator = new Migrator({ db: connection.db, provider: { getMigrations: async () => migrationsFor(connection.dialect) } });
    const { error, results } = await migrator.migrateTo(version);
    if (error) throw error;
    assert.equal(results?.at(-1)?.migrationName, version);
    return await seed(connection.db as Kysely<any>);
  } finally {
    await connection.close();
  }
}

describe(`upgrades: a database of an earlier schema, opened by today's server (${db})`, () => {
  for (const [version, seed] of [
    [OLDEST, (database: Kysely<any>, now: number) => seedAccounts(database, now)],
    [MIDDLE, (database: Kysely<any>, now: number, dataDir: string) => seedCustomization(database, now, dataDir)],
  ] as const) {
    it(`from ${version}: every kind of data is there and usable`, async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'tolk-upgrade-'));
      let database: FreshDatabase | undefined;
      let server: ServeProcess | undefined;
      try {
        database = db === 'postgres' ? await freshPostgresDatabase('tolk_upgrade') : undefined;
        const url = database?.url ?? join(dataDir, 'tolk.db');
        const data = await oldDatabase(url, version, (d) => seed(d, Date.now(), dataDir));
        const port = await freePort();
        server = await startServe({
          ...process.env,
          TOLK_DATA_DIR: dataDir,
          TOLK_DATABASE_URL: url,
          TOLK_PORT: String(port),
          TOLK_FREE_PORT: String(await freePort()),
          TOLK_APERTIUM_PAIRS: 'en-es',
          // documents written before 0018 are on the node's disk: an upgraded cluster keeps the disk store until they
          // are downloaded or expired (docs/operations.md)
          TOLK_DOCUMENT_STORE: 'disk',
        });
        const base = `http://127.0.0.1:${port}`;
        const ready = await (await fetch(`${base}/health/ready`)).json();
        assert.deepEqual(ready.database, { reachable: true, pending_migrations: [] });

        assert.equal(await characterCount(base, data), data.characters);
        const revoked = await apiOf(base, data.revokedKey)('GET', '/v2/usage');
        assert.equal(revoked.status, 403, revoked.text);
        // the per-day rollups migration 0002 built from the old usage events
        const day = new Date(Date.now() - 1_800_000).toISOString().slice(0, 10);
        const next = new Date(Date.parse(day) + 86_400_000).toISOString().slice(0, 10);
        const report = await apiOf(base, data.adminKey)('GET', `/v2/admin/analytics?start_date=${day}&end_date=${next}&group_by=key`);
        assert.equal(report.status, 200, report.text);
        const usage = report.json().usage_report.key_usages.find((k: { api_key_label: string }) => k.api_key_label === 'old developer key').usage;
        assert.equal(usage.text_translation_characters, 110, report.text);
        assert.equal(usage.document_translation_characters, 40, report.text);

        await checkInstallation(base, data);
      } finally {
        await server?.stop();
        await database?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

describe(`downgrades: an older release facing a newer schema (${db})`, () => {
  it('a node starting refuses with a clear message; a node already running stays ready (no migration of its own is pending)', async () => {
    const location = testStoreLocation();
    const running = await Store.open({ url: location.url, ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}) });
    try {
      // what a newer release's migration leaves in the bookkeeping table
      await insert(running.db as Kysely<any>, 'kysely_migration', { name: '0099_from_the_future', timestamp: new Date().toISOString() });
      const starting = Store.open({ url: location.url, ...(location.pgSchema ? { pgSchema: location.pgSchema } : {}) });
      await assert.rejects(starting, /upgraded by a newer Tolk release \(its migration 0099_from_the_future is unknown to this one\)/);
      assert.deepEqual(await running.health(), { reachable: true, pendingMigrations: [] });
    } finally {
      await running.close({ dropSchema: true });
      location.cleanup();
    }
  });
});
