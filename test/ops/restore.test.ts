// `tolk restore` refuses what it must not unpack, before writing anything: hostile archives (names leaving the data
// folder, links, forged sizes, altered content, entries the manifest does not list), backups of a newer schema, and
// a data folder that is not empty. The end-to-end backup and restore is test/integration/backup-restore.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import { sql } from 'kysely';
import { loadConfig } from '../../src/config.js';
import { Store } from '../../src/store/store.js';
import { backup } from '../../src/ops/backup.js';
import { describeRestore, restore } from '../../src/ops/restore.js';
import { unzipAll } from '../helpers/zip.js';

let root: string;
let archive: string;
let entries: [string, Buffer][];

const configFor = (dataDir: string) => loadConfig({ TOLK_DATA_DIR: dataDir });

/**
 * An archive of `items` (each optionally with its mode, e.g. a symbolic link's). yazl refuses to write names with
 * `..` or empty segments: such a name is written as a placeholder of its length, then patched in the bytes.
 */
async function writeZip(path: string, items: [string, Buffer | string, number?][]): Promise<void> {
  const zip = new yazl.ZipFile();
  const forged: [string, string][] = [];
  for (const [name, data, mode] of items) {
    const hostile = name.split('/').some((p) => p === '..' || p === '');
    const written = hostile ? `~${'Q'.repeat(name.length - 2)}~` : name;
    if (hostile) forged.push([written, name]);
    zip.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), written, mode ? { mode } : {});
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  let bytes = Buffer.concat(chunks);
  for (const [placeholder, name] of forged) {
    for (let at = bytes.indexOf(placeholder); at >= 0; at = bytes.indexOf(placeholder, at + 1)) bytes.write(name, at, 'latin1');
  }
  writeFileSync(path, bytes);
}

const manifestOf = () => JSON.parse(entries.find(([n]) => n === 'tolk-backup.json')![1].toString('utf8'));
const withManifest = (manifest: unknown): [string, Buffer][] =>
  entries.map(([n, d]) => [n, n === 'tolk-backup.json' ? Buffer.from(JSON.stringify(manifest)) : d]);

/** Restores `items` as an archive into a fresh folder: the refusal's message, and whether anything was written. */
async function refusal(items: [string, Buffer | string, number?][]): Promise<{ message: string; written: string[] }> {
  const path = join(root, `hostile-${Math.random().toString(36).slice(2)}.zip`);
  await writeZip(path, items);
  const target = join(root, `target-${Math.random().toString(36).slice(2)}`);
  const err = await restore(configFor(target), path).then(() => assert.fail('restored'), (e: Error) => e);
  assert.equal((err as { code?: string }).code, 'invalid_request', err.stack);
  return { message: err.message, written: readdirSync(root).filter((n) => n.startsWith(target.split('/').pop()!)) };
}

describe('tolk restore: what it refuses', () => {
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'tolk-restore-'));
    const dataDir = join(root, 'data');
    const store = await Store.open({ url: join(dataDir, 'tolk.db') });
    await sql`insert into documents (id, account_id, key_id, status, format, output_format, target_lang, formality, key_verifier, upload_bytes, created_at)
      values ('DOC', 'a', 'k', 'done', 'txt', 'txt', 'es', 'default', 'v', 12, ${Date.now()})`.execute(store.db);
    await store.close();
    mkdirSync(join(dataDir, 'documents'));
    writeFileSync(join(dataDir, 'documents', '.key-encryption-key'), 'ab'.repeat(32));
    writeFileSync(join(dataDir, 'documents', 'DOC.result'), 'sealed bytes');
    // installed models (TOLK_MODELS_DIR, here the default under the data folder): listed, never copied
    mkdirSync(join(dataDir, 'models', 'whisper'), { recursive: true });
    writeFileSync(join(dataDir, 'models', 'whisper', 'ggml-tiny.bin'), 'weights');
    mkdirSync(join(dataDir, 'models', 'llm'));
    writeFileSync(join(dataDir, 'models', 'llm', 'small-chat.gguf'), 'weights');
    // the upload of a document whose row came after the database's snapshot: no use without it
    writeFileSync(join(dataDir, 'documents', 'LATER.upload'), 'sealed upload');
    archive = join(root, 'backup.zip');
    await backup(configFor(dataDir), archive);
    entries = await unzipAll(readFileSync(archive));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('premise: the untouched archive restores, database and files', async () => {
    const target = join(root, 'fine');
    const result = await restore(configFor(target), archive);
    assert.deepEqual(entries.map(([n]) => n).sort(), ['data/documents/.key-encryption-key', 'data/documents/DOC.result', 'database.sqlite', 'tolk-backup.json']);
    assert.equal(result.files, 3);
    assert.deepEqual(result.manifest.models, [{ name: 'whisper-tiny', version: null }, { name: 'llm-small-chat', version: null }]);
    assert.match(describeRestore(result), /models were not in the backup; install them again with: tolk models install whisper-tiny llm-small-chat/);
    assert.equal(readFileSync(join(target, 'documents', 'DOC.result'), 'utf8'), 'sealed bytes');
    const store = await Store.open({ url: join(target, 'tolk.db') });
    assert.deepEqual(await store.health().then((h) => h.pendingMigrations), []);
    await store.close();
  });

  it('tolk backup: an archive inside the data folder (the next backup would hold it)', async () => {
    await assert.rejects(backup(configFor(join(root, 'data')), join(root, 'data', 'b.zip')), /outside the data folder/);
  });

  it('tolk backup on PostgreSQL without --no-database: pointed to pg_dump', async () => {
    const config = loadConfig({ TOLK_DATA_DIR: join(root, 'data'), TOLK_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    await assert.rejects(backup(config, join(root, 'pg.zip')), /the database is PostgreSQL .*pg_dump.*--no-database/);
  });

  it('a data folder that is not empty', async () => {
    await assert.rejects(restore(configFor(join(root, 'data')), archive), /data folder .* is not empty/);
  });

  it('names that leave the data folder, and links', async () => {
    for (const name of ['data/../../escaped', 'data/documents/../../x', '../x', 'other/x', 'data//x']) {
      const { message, written } = await refusal([...entries, [name, 'x']]);
      assert.match(message, /outside its known places|damaged or no tolk backup/, name);
      assert.deepEqual(written, []);
    }
    const link = await refusal([...entries, ['data/documents/link', '/etc/passwd', 0o120777]]);
    assert.match(link.message, /no regular file/);
  });

  it('sizes and content that do not match the manifest, entries it does not list', async () => {
    const manifest = manifestOf();
    const forged = structuredClone(manifest);
    forged.files.find((f: { entry: string }) => f.entry === 'data/documents/DOC.result').bytes = 10 ** 12;
    assert.match((await refusal(withManifest(forged))).message, /has 12 bytes, its manifest says 1000000000000/);

    const altered = entries.map(([n, d]): [string, Buffer] => [n, n === 'data/documents/DOC.result' ? Buffer.from('sealed bytez') : d]);
    const damaged = await refusal(altered);
    assert.match(damaged.message, /DOC.result in the backup is damaged/);
    assert.deepEqual(damaged.written, [], 'nothing is left of an interrupted restore');

    assert.match((await refusal([...entries, ['data/documents/extra', 'x']])).message, /does not list/);
    assert.match((await refusal(entries.filter(([n]) => n !== 'tolk-backup.json'))).message, /no tolk-backup.json/);
    assert.match((await refusal(withManifest({ ...manifest, format: 'zip' }))).message, /not a tolk-backup version 1 manifest/);
  });

  it('a database of a newer schema than this build knows', async () => {
    const manifest = manifestOf();
    const newer = { ...manifest, tolk_version: '9.0.0', database: { kind: 'sqlite', migrations: [...manifest.database.migrations, '0099_future'] } };
    assert.match((await refusal(withManifest(newer))).message, /migrations this Tolk does not know \(0099_future\).*9\.0\.0/);
  });

  it('a backup made with --no-database, into a SQLite installation', async () => {
    const manifest = manifestOf();
    const noDatabase = { ...manifest, database: { kind: 'none' }, files: manifest.files.filter((f: { entry: string }) => f.entry !== 'database.sqlite') };
    const items = withManifest(noDatabase).filter(([n]) => n !== 'database.sqlite');
    assert.match((await refusal(items)).message, /holds no database \(made with --no-database\)/);
  });
});
