// The public index Firefox reads its translation models from: Remote Settings' `translations-models` collection
// (one record per file: language pair, version, file type, attachment with size and SHA-256), attachments served
// from the base URL the server announces.

export const DEFAULT_INDEX_URL = 'https://firefox.settings.services.mozilla.com/v1/buckets/main/collections/translations-models/records';

export class ModelIndexError extends Error {}

export interface IndexFile {
  /** model, lex, vocab, srcvocab, trgvocab (others, e.g. qualityModel, are skipped). */
  fileType: string;
  filename: string;
  url: string;
  size: number;
  sha256: string;
}

export interface IndexModel {
  source: string;
  target: string;
  version: string;
  files: IndexFile[];
}

interface RawRecord {
  fromLang?: string;
  toLang?: string;
  sourceLanguage?: string;
  targetLanguage?: string;
  version?: string;
  fileType?: string;
  name?: string;
  attachment?: { hash?: string; size?: number | string; filename?: string; location?: string };
}

const FILE_TYPES = new Set(['model', 'lex', 'vocab', 'srcvocab', 'trgvocab']);

async function getJson(url: string, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (err) {
    throw new ModelIndexError(`cannot reach the ${what} at ${url} (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`);
  }
  if (!res.ok) throw new ModelIndexError(`the ${what} at ${url} answered HTTP ${res.status}`);
  try {
    return await res.json();
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

/** Every model (pair × version) the index lists, with its files. */
export async function readModelIndex(indexUrl: string = DEFAULT_INDEX_URL): Promise<IndexModel[]> {
  const body = (await getJson(indexUrl, 'model index')) as { data?: RawRecord[] };
  if (!Array.isArray(body.data)) throw new ModelIndexError(`the model index at ${indexUrl} has no "data" list of records`);
  const base = await attachmentsBase(indexUrl);
  const models = new Map<string, IndexModel>();
  for (const r of body.data) {
    const source = (r.fromLang ?? r.sourceLanguage)?.toLowerCase();
    const target = (r.toLang ?? r.targetLanguage)?.toLowerCase();
    const a = r.attachment;
    if (!source || !target || !r.version || !r.fileType || !FILE_TYPES.has(r.fileType) || !a?.location || !a.hash) continue;
    const key = `${source}-${target}@${r.version}`;
    if (!models.has(key)) models.set(key, { source, target, version: r.version, files: [] });
    models.get(key)!.files.push({
      fileType: r.fileType,
      filename: a.filename ?? r.name ?? a.location.split('/').pop()!,
      url: new URL(a.location, base).href,
      size: Number(a.size ?? 0),
      sha256: a.hash.toLowerCase(),
    });
  }
  return [...models.values()];
}

/** The newest release of a direction ("en-de"); pre-releases only when nothing else exists. */
export function pickModel(models: IndexModel[], pair: string): IndexModel {
  const [source, target] = pair.toLowerCase().split('-');
  const candidates = models.filter((m) => m.source === source && m.target === target);
  if (candidates.length === 0) {
    const known = [...new Set(models.map((m) => `${m.source}-${m.target}`))].sort();
    throw new ModelIndexError(`the model index has no ${pair} model (it has: ${known.join(', ') || 'none'})`);
  }
  const releases = candidates.filter((m) => /^[\d.]+$/.test(m.version));
  const pool = releases.length > 0 ? releases : candidates;
  return pool.sort((a, b) => compareVersions(b.version, a.version))[0]!;
}
