// The public index Firefox reads its translation models from: Remote Settings' `translations-models-v2` collection
// (one record per file: direction, version, architecture, file type, a filter naming the clients it is for, and an
// attachment, zstd-compressed, with size and SHA-256 of both the download and the decompressed file). The older
// `translations-models` collection (v1: `fromLang`/`toLang`, uncompressed) is still read when pointed at.
// Attachments are served from the base URL the server announces.
import { evaluateFilterExpression, serverEnvironment, type FilterEnvironment } from './filter-expression.js';

export const DEFAULT_INDEX_URL = 'https://firefox.settings.services.mozilla.com/v1/buckets/main/collections/translations-models-v2/records';

export class ModelIndexError extends Error {}

export interface IndexFile {
  /** model, lex, vocab, srcvocab, trgvocab (others, e.g. qualityModel, are skipped). */
  fileType: string;
  /** The name the runtime loads (decompressed). */
  filename: string;
  url: string;
  /** Bytes and SHA-256 of the download (compressed when `zstd`). */
  size: number;
  sha256: string;
  /** v2 attachments are zstd-compressed; then the decompressed file is checked too. */
  zstd?: { size: number; sha256: string };
}

export interface IndexModel {
  /** Codes as the index writes them ("en", "zh-Hans"). */
  source: string;
  target: string;
  version: string;
  /** tiny, base-memory, base (v2 only). */
  architecture: string | undefined;
  /** The Remote Settings filter of the variant ("" for every client). */
  filterExpression: string;
  files: IndexFile[];
}

export interface RawRecord {
  fromLang?: string;
  toLang?: string;
  sourceLanguage?: string;
  targetLanguage?: string;
  version?: string;
  fileType?: string;
  name?: string;
  architecture?: string;
  filter_expression?: string;
  decompressedHash?: string;
  decompressedSize?: number | string;
  attachment?: { hash?: string; size?: number | string; filename?: string; location?: string; mimetype?: string };
}

const FILE_TYPES = new Set(['model', 'lex', 'vocab', 'srcvocab', 'trgvocab']);

/** The most a model index (or its server's root document) may be: today's index is 185 KB. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

async function getJson(url: string, what: string): Promise<unknown> {
  let res: Response;
  const signal = AbortSignal.timeout(30_000);
  try {
    res = await fetch(url, { signal });
  } catch (err) {
    throw new ModelIndexError(`cannot reach the ${what} at ${url} (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`);
  }
  if (!res.ok || !res.body) throw new ModelIndexError(`the ${what} at ${url} answered HTTP ${res.status}`);
  // Read with a budget: a server sending gigabytes is stopped at the limit, not buffered.
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
      received += chunk.length;
      if (received > MAX_INDEX_BYTES) {
        await res.body.cancel().catch(() => undefined);
        throw new ModelIndexError(`the ${what} at ${url} is larger than ${MAX_INDEX_BYTES} bytes; stopped there`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    if (err instanceof ModelIndexError) throw err;
    throw new ModelIndexError(`the ${what} at ${url} broke off after ${received} bytes (${(err as Error).message})`);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ModelIndexError(`the ${what} at ${url} is not JSON`);
  }
}

/** Attachments live under the base URL the Remote Settings server announces at its root (…/v1/). */
async function attachmentsBase(indexUrl: string): Promise<string> {
  const at = indexUrl.indexOf('/v1/');
  const root = at >= 0 ? indexUrl.slice(0, at + 4) : new URL('/', indexUrl).href;
  const info = (await getJson(root, 'model index server')) as { capabilities?: { attachments?: { base_url?: string } } };
  const base = info.capabilities?.attachments?.base_url;
  if (!base) throw new ModelIndexError(`the model index server at ${root} announces no attachments base URL`);
  return base.endsWith('/') ? base : `${base}/`;
}

/** Compares dotted versions numerically ("1.10" > "1.9"); a pre-release suffix ("1.0a1") sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.split('.').map((p) => /^(\d+)(.*)$/.exec(p) ?? [p, '0', p]);
  const pa = parts(a);
  const pb = parts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [, na = '0', sa = ''] = pa[i] ?? [];
    const [, nb = '0', sb = ''] = pb[i] ?? [];
    if (Number(na) !== Number(nb)) return Number(na) - Number(nb);
    if (sa !== sb) return sa === '' ? 1 : sb === '' ? -1 : sa.localeCompare(sb);
  }
  return 0;
}

/** Every model (direction × version × variant) the index lists, with its files; v1 (`fromLang`) and v2 records alike. */
export async function readModelIndex(indexUrl: string = DEFAULT_INDEX_URL): Promise<IndexModel[]> {
  const body = (await getJson(indexUrl, 'model index')) as { data?: unknown };
  if (!Array.isArray(body.data)) throw new ModelIndexError(`the model index at ${indexUrl} has no "data" list of records`);
  return modelsOfRecords(body.data as RawRecord[], await attachmentsBase(indexUrl));
}

/** The records of an index grouped into models; attachment locations resolved against `base`. */
export function modelsOfRecords(records: readonly RawRecord[], base: string): IndexModel[] {
  const models = new Map<string, IndexModel>();
  for (const r of records) {
    const source = r.fromLang ?? r.sourceLanguage;
    const target = r.toLang ?? r.targetLanguage;
    const a = r.attachment;
    if (!source || !target || !r.version || !r.fileType || !FILE_TYPES.has(r.fileType) || !a?.location || !a.hash) continue;
    const filterExpression = r.filter_expression ?? '';
    const key = `${source}-${target}@${r.version}|${filterExpression}`;
    if (!models.has(key)) models.set(key, { source, target, version: r.version, architecture: r.architecture, filterExpression, files: [] });
    const compressed = a.mimetype === 'application/zstd' || /\.zst$/.test(a.filename ?? a.location);
    if (compressed && (!r.decompressedHash || r.decompressedSize === undefined)) continue;
    const filename = compressed ? (r.name ?? a.filename!.replace(/\.zst$/, '')) : (a.filename ?? r.name ?? a.location.split('/').pop()!);
    models.get(key)!.files.push({
      fileType: r.fileType,
      filename,
      url: new URL(a.location, base).href,
      size: Number(a.size ?? 0),
      sha256: a.hash.toLowerCase(),
      ...(compressed ? { zstd: { size: Number(r.decompressedSize), sha256: r.decompressedHash!.toLowerCase() } } : {}),
    });
  }
  return [...models.values()];
}

/** A direction on the command line: language codes with optional subtags ("en-de", "en-zh-Hans", "zh-hans-en"). */
export const DIRECTION_SYNTAX = /^[a-z]{2,3}(?:-[a-z0-9]{2,8}){1,4}$/i;

const baseOf = (code: string) => code.split('-')[0]!;

/**
 * Whether `requested` names the direction source→target: exactly, or with either side's subtags left out
 * ("en-zh" and "en-zh-hans" both name en → zh-Hans). Case does not matter.
 */
export function namesDirection(requested: string, source: string, target: string): boolean {
  const r = requested.toLowerCase();
  const s = source.toLowerCase();
  const t = target.toLowerCase();
  for (const a of new Set([s, baseOf(s)])) for (const b of new Set([t, baseOf(t)])) if (`${a}-${b}` === r) return true;
  return false;
}

export const directionOf = (m: { source: string; target: string }) => `${m.source}-${m.target}`;

export interface PickOptions {
  /** Pre-releases (nightly-channel filters, versions like 3.0a1) are candidates too. */
  pre?: boolean;
}

export interface PickedModel {
  model: IndexModel;
  /** Why this is not the release desktop variant, when it is not (only pre-releases exist). */
  note?: string;
}

const isRelease = (version: string) => /^[\d.]+$/.test(version);

/** The variants a client in `env` may use: filter expressions that hold; one that cannot be read does not. */
function forClient(models: IndexModel[], env: FilterEnvironment): IndexModel[] {
  return models.filter((m) => {
    try {
      return evaluateFilterExpression(m.filterExpression, env);
    } catch {
      return false;
    }
  });
}

/**
 * The model Firefox desktop on the release channel would use for a direction ("en-de", "zh-en"): variants whose
 * filter holds for this server, the newest release among them; pre-releases only with `pre` or when nothing else
 * exists (then `note` says so).
 */
export function pickModel(models: IndexModel[], requested: string, options: PickOptions = {}): PickedModel {
  const matching = models.filter((m) => namesDirection(requested, m.source, m.target));
  const directions = [...new Set(matching.map(directionOf))];
  if (directions.length === 0) {
    const known = [...new Set(models.map(directionOf))].sort();
    throw new ModelIndexError(`the model index has no ${requested} model (it has: ${known.join(', ') || 'none'})`);
  }
  if (directions.length > 1) {
    const exact = directions.find((d) => d.toLowerCase() === requested.toLowerCase());
    if (!exact) throw new ModelIndexError(`${requested} could mean ${directions.join(' or ')}: name one`);
    return pickModel(matching.filter((m) => directionOf(m) === exact), exact, options);
  }
  const newest = (pool: IndexModel[]) => [...pool].sort((a, b) => compareVersions(b.version, a.version))[0];
  const releases = forClient(matching, serverEnvironment(false)).filter((m) => isRelease(m.version));
  const pre = options.pre ? newest(forClient(matching, serverEnvironment(true))) : undefined;
  const release = newest(releases);
  if (pre && (!release || compareVersions(pre.version, release.version) > 0)) return { model: pre };
  if (release) return { model: release };
  const fallback = newest(forClient(matching, serverEnvironment(true)));
  if (!fallback) {
    const filters = [...new Set(matching.map((m) => m.filterExpression))].join('; ');
    throw new ModelIndexError(`the model index has no ${directions[0]} model for a desktop server (only for: ${filters})`);
  }
  return { model: fallback, note: `${directions[0]} exists only as a pre-release (${fallback.version}); installing that` };
}

/** The languages `tolk models install --common` installs both ways with English. */
export const COMMON_LANGUAGES = ['de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'ja', 'zh', 'ru'];
export const COMMON_DIRECTIONS = COMMON_LANGUAGES.flatMap((l) => [`en-${l}`, `${l}-en`]);

/** An installed model as the models directory reports it (the engine's codes: zh, zh-hans). */
export interface InstalledDirection {
  source: string;
  target: string;
  version: string | undefined;
}

export interface AvailableModel {
  direction: string;
  version: string;
  architecture: string | undefined;
  /** Bytes to download (compressed). */
  downloadBytes: number;
  /** null: not installed; undefined: installed, version unknown (copied in by hand). */
  installedVersion: string | null | undefined;
}

/** One row per direction the index offers: the variant `pickModel` installs, and what is installed of it. */
export function availableModels(models: IndexModel[], installed: InstalledDirection[], options: PickOptions = {}): AvailableModel[] {
  const rows: AvailableModel[] = [];
  for (const direction of [...new Set(models.map(directionOf))].sort()) {
    let picked: PickedModel;
    try {
      picked = pickModel(models, direction, options);
    } catch {
      continue; // Only for other clients (Android).
    }
    const { model } = picked;
    const have = installed.find((m) => namesDirection(`${m.source}-${m.target}`, model.source, model.target));
    rows.push({
      direction,
      version: model.version,
      architecture: model.architecture,
      downloadBytes: model.files.reduce((sum, f) => sum + f.size, 0),
      installedVersion: have ? have.version : null,
    });
  }
  return rows;
}

/** Installed directions the index has a newer version of. */
export function updatesFor(models: IndexModel[], installed: InstalledDirection[], options: PickOptions = {}): AvailableModel[] {
  return availableModels(models, installed, options).filter(
    (r) => r.installedVersion !== null && (r.installedVersion === undefined || compareVersions(r.version, r.installedVersion) > 0),
  );
}
