// Calls to Tolk's API from the page: the key lives in sessionStorage only (never in a URL), and every failure becomes
// an ApiError whose message says in words what happened.
const STORAGE = 'tolk.key';

export function currentKey(): string | null {
  return sessionStorage.getItem(STORAGE);
}
export function setKey(key: string): void {
  sessionStorage.setItem(STORAGE, key);
}
export function forgetKey(): void {
  sessionStorage.removeItem(STORAGE);
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const SERVER_DOWN = 'Tolk cannot be reached: the server is down or the network is unavailable. Try again in a moment.';

/** The message a person reads for an API error: the server's own text, prefixed where the status says more. */
export function describe(status: number, serverMessage: string, traceId: string | null): string {
  const msg = serverMessage.trim();
  switch (status) {
    case 403:
      if (/wrong endpoint/i.test(msg)) {
        return `This key belongs to the other plan's address. ${msg.replace(/^Wrong endpoint\.\s*/i, '')}, and sign in there.`;
      }
      if (/unknown or has been deactivated|supply a valid key|header format/i.test(msg)) return 'This API key is unknown or has been deactivated.';
      return msg || 'This key is not allowed to do that.';
    case 456:
      return 'Quota reached: the character limit of this key or account is used up for this billing period.';
    case 429:
      return 'Too many requests: wait a moment and try again.';
    case 413:
      return `Too large: ${msg || 'the request exceeds the size limit.'}`;
    case 504:
      return 'The translation engine took too long to answer. Try a shorter text.';
    case 503:
      return msg || 'Tolk is busy or shutting down; try again.';
    default:
      if (status >= 500) return `Tolk failed with an internal error${traceId ? ` (trace id ${traceId})` : ''}.`;
      return msg || `Request failed (HTTP ${status}).`;
  }
}

async function failure(res: Response): Promise<ApiError> {
  let message = '';
  try {
    const body = (await res.json()) as { message?: string; detail?: string };
    message = [body.message, body.detail].filter(Boolean).join(': ');
  } catch {
    /* not JSON */
  }
  return new ApiError(res.status, describe(res.status, message, res.headers.get('x-trace-id')));
}

export interface CallOptions {
  body?: unknown;
  /** Return the response itself (downloads). */
  raw?: boolean;
  headers?: Record<string, string>;
  /** Aborts the request: the call then rejects with Cancelled. */
  signal?: AbortSignal;
}

/** The person cancelled the request (CallOptions.signal). */
export class Cancelled extends Error {
  constructor() {
    super('Cancelled.');
  }
}

export async function call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { ...options.headers };
  const key = currentKey();
  if (key) headers.authorization = `Service-Auth-Key ${key}`;
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body, cache: 'no-store', signal: options.signal ?? null });
  } catch {
    if (options.signal?.aborted) throw new Cancelled();
    throw new ApiError(0, SERVER_DOWN);
  }
  if (!res.ok) throw await failure(res);
  if (options.raw) return res as T;
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A multipart upload with progress (fetch cannot report upload progress; XMLHttpRequest can). */
export function upload<T>(path: string, form: FormData, onProgress: (fraction: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    const key = currentKey();
    if (key) xhr.setRequestHeader('authorization', `Service-Auth-Key ${key}`);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onerror = () => reject(new ApiError(0, SERVER_DOWN));
    xhr.onload = () => {
      const body = (xhr.response ?? {}) as { message?: string };
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as T);
      else reject(new ApiError(xhr.status, describe(xhr.status, body.message ?? '', xhr.getResponseHeader('x-trace-id'))));
    };
    xhr.send(form);
  });
}

export interface Session {
  plan: 'free' | 'pro';
  admin: boolean;
  label: string;
  scopes: string[] | null;
  document_formats: { extensions: string[]; max_bytes: number }[];
  /** Languages Write serves, and how (a language model rephrases; Hunspell or the model corrects). */
  write_languages: { code: string; rephrase: boolean; correct: boolean; style: boolean }[];
}

export function allows(session: Session, scope: string): boolean {
  return session.scopes === null || session.scopes.includes(scope);
}

export interface Language {
  language: string;
  name: string;
  supports_formality?: boolean;
}

export interface GlossaryInfo {
  glossary_id: string;
  name: string;
  dictionaries: { source_lang: string; target_lang: string; entry_count: number }[];
  creation_time: string;
}

/** The base language of a code (EN-US → en), as glossary dictionaries name it. */
export const baseLanguage = (code: string) => code.toLowerCase().split('-')[0]!;

/** The account's glossaries, or none when the key may not use them. */
export async function loadGlossaries(session: Session): Promise<GlossaryInfo[]> {
  if (!allows(session, 'glossary')) return [];
  return (await call<{ glossaries: GlossaryInfo[] }>('GET', '/v3/glossaries')).glossaries;
}

/** Glossaries with a dictionary for this pair; none without an explicit source (the API requires one). */
export function glossariesFor(glossaries: GlossaryInfo[], source: string, target: string): GlossaryInfo[] {
  if (!source) return [];
  const [s, t] = [baseLanguage(source), baseLanguage(target)];
  return glossaries.filter((g) => g.dictionaries.some((d) => baseLanguage(d.source_lang) === s && baseLanguage(d.target_lang) === t));
}

/** Fills a glossary selector for the chosen pair. */
export function glossaryOptions(select: HTMLSelectElement, usable: GlossaryInfo[], source: string): void {
  const previous = select.value;
  const none = document.createElement('option');
  none.value = '';
  none.textContent = source ? 'No glossary' : 'Choose a source language first';
  select.replaceChildren(none, ...usable.map((g) => Object.assign(document.createElement('option'), { value: g.glossary_id, textContent: g.name })));
  if (usable.some((g) => g.glossary_id === previous)) select.value = previous;
  select.disabled = usable.length === 0;
}

/** Language lists are fetched once per sign-in. */
let languages: Promise<{ sources: Language[]; targets: Language[] }> | undefined;
export function loadLanguages(): Promise<{ sources: Language[]; targets: Language[] }> {
  languages ??= Promise.all([
    call<Language[]>('GET', '/v2/languages?type=source'),
    call<Language[]>('GET', '/v2/languages?type=target'),
  ]).then(([sources, targets]) => ({ sources, targets }));
  languages.catch(() => (languages = undefined));
  return languages;
}
export function resetCaches(): void {
  languages = undefined;
}
