// The image formats' OCR: Debian's Tesseract as a child process (raw pixels in as PNM, TSV word boxes out).
import { spawn } from 'node:child_process';
import { residentBytes } from '../../engines/process-pool.js';
import { DocumentFormatError } from '../formats/format.js';
import type { RecognizedWord, RgbImage, TextRecognizer } from '../formats/image/text-recognizer.js';

/** Tesseract's traineddata names of the languages Tolk translates from (ISO 639-1 → ISO 639-2/T as Tesseract names them). */
const TESSERACT_LANGUAGES: Record<string, string> = {
  ar: 'ara', bg: 'bul', ca: 'cat', cs: 'ces', da: 'dan', de: 'deu', el: 'ell', en: 'eng', es: 'spa', et: 'est', eu: 'eus',
  fi: 'fin', fr: 'fra', gl: 'glg', he: 'heb', hu: 'hun', id: 'ind', it: 'ita', ja: 'jpn', ko: 'kor', lt: 'lit', lv: 'lav',
  nb: 'nor', nl: 'nld', nn: 'nor', no: 'nor', oc: 'oci', pl: 'pol', pt: 'por', ro: 'ron', ru: 'rus', sk: 'slk', sl: 'slv',
  sv: 'swe', tr: 'tur', uk: 'ukr', zh: 'chi_sim',
};
/** Without a source language: the languages Debian ships by default here, together (about twice as slow as one). */
const FALLBACK_LANGUAGES = ['eng', 'spa', 'deu', 'fra'];

export interface TesseractOptions {
  command?: string;
  /** A run is killed after this long (a 25-megapixel page takes well under a minute). */
  timeoutMs?: number;
  /** TSV output beyond this is refused (a dense page is a few hundred kilobytes). */
  maxOutputBytes?: number;
  /** A run whose resident memory grows beyond this is killed (a 25-megapixel page needs a few hundred MB). */
  maxRssBytes?: number;
}

/** How often a run's resident memory is looked at. */
const MEMORY_CHECK_MS = 500;

export class TesseractRecognizer implements TextRecognizer {
  private installed: Promise<Set<string>> | undefined;
  private readonly command: string;
  private readonly timeoutMs: number;
  private readonly maxOutputBytes: number;
  private readonly maxRssBytes: number;

  constructor(o: TesseractOptions = {}) {
    this.command = o.command ?? 'tesseract';
    this.timeoutMs = o.timeoutMs ?? 120_000;
    this.maxOutputBytes = o.maxOutputBytes ?? 32 * 1024 * 1024;
    this.maxRssBytes = o.maxRssBytes ?? 1536 * 1024 * 1024;
  }

  async recognize(image: RgbImage, language: string | undefined, signal?: AbortSignal): Promise<RecognizedWord[]> {
    const langs = await this.languagesFor(language);
    // PNM: a text header, then the raw pixels (sent as they are, not copied into one buffer)
    const header = Buffer.from(`P6\n${image.width} ${image.height}\n255\n`, 'latin1');
    const tsv = await this.run(['stdin', 'stdout', '-l', langs, 'tsv'], [header, image.rgb], false, signal);
    return parseTesseractTsv(tsv);
  }

  /** The source language's data when installed, else every fallback language that is installed. */
  async languagesFor(language: string | undefined): Promise<string> {
    const installed = await this.installedLanguages();
    const wanted = language === undefined ? undefined : TESSERACT_LANGUAGES[language.split('-')[0]!.toLowerCase()];
    if (wanted !== undefined && installed.has(wanted)) return wanted;
    const fallback = FALLBACK_LANGUAGES.filter((l) => installed.has(l));
    if (fallback.length > 0) return fallback.join('+');
    const any = [...installed].find((l) => l !== 'osd');
    if (any === undefined) throw new Error('Tesseract has no language data installed (Debian: tesseract-ocr-eng).');
    return any;
  }

  private installedLanguages(): Promise<Set<string>> {
    this.installed ??= this.run(['--list-langs'], undefined, true).then((out) => {
      // the first line is a heading ("List of available languages in …:")
      const names = out.split('\n').slice(1).map((l) => l.trim()).filter((l) => /^[A-Za-z_]+$/.test(l));
      return new Set(names);
    });
    this.installed.catch(() => (this.installed = undefined));
    return this.installed;
  }

  /** One tesseract run, killed at the deadline or when `signal` aborts (the job it works for is over). */
  private run(args: string[], input: Buffer[] | undefined, includeStderr = false, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.reject(new Error('Text recognition was cancelled.'));
    return new Promise((resolve, reject) => {
      // one OCR thread per run: jobs already run side by side, and OpenMP threads only contend with them
      const child = spawn(this.command, args, { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let outBytes = 0;
      let err = '';
      let failure: Error | undefined;
      const fail = (e: Error) => {
        failure ??= e;
        child.kill('SIGKILL');
      };
      // the limits end the job with their reason as its error message (DocumentFormatError), not an internal error
      const timer = setTimeout(() => fail(new DocumentFormatError(`Text recognition took longer than ${this.timeoutMs / 1000} s.`)), this.timeoutMs);
      const memory = setInterval(() => {
        if (child.pid !== undefined && residentBytes(child.pid) > this.maxRssBytes) {
          fail(new DocumentFormatError(`Text recognition needed more than ${Math.round(this.maxRssBytes / 1048576)} MB of memory.`));
        }
      }, MEMORY_CHECK_MS);
      const onAbort = () => fail(new Error('Text recognition was cancelled.'));
      signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout.on('data', (c: Buffer) => {
        outBytes += c.length;
        if (outBytes > this.maxOutputBytes) fail(new DocumentFormatError('Text recognition produced too much output.'));
        else out.push(c);
      });
      child.stderr.on('data', (c: Buffer) => {
        if (err.length < 4096) err += c.toString('utf8');
      });
      child.on('error', (e: NodeJS.ErrnoException) =>
        fail(e.code === 'ENOENT' ? new Error(`Text recognition is not available: '${this.command}' is not installed (Debian: tesseract-ocr).`) : e),
      );
      child.stdin.on('error', () => {}); // a child that exits early closes its stdin: the exit code reports why
      child.on('close', (code) => {
        clearTimeout(timer);
        clearInterval(memory);
        signal?.removeEventListener('abort', onAbort);
        if (failure) return reject(failure);
        if (code !== 0) return reject(new Error(`Text recognition failed (tesseract exit ${code}): ${err.trim().slice(0, 500)}`));
        resolve(Buffer.concat(out).toString('utf8') + (includeStderr ? err : ''));
      });
      for (const part of input ?? []) child.stdin.write(part);
      child.stdin.end();
    });
  }
}

/** Word rows (level 5) of Tesseract's TSV: level page block par line word left top width height conf text. */
export function parseTesseractTsv(tsv: string): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f.length < 12 || f[0] !== '5') continue;
    const [block, paragraph, line, , left, top, width, height, confidence] = f.slice(2, 11).map(Number);
    const text = f.slice(11).join('\t').replace(/\r$/, '');
    if (![block, paragraph, line, left, top, width, height, confidence].every(Number.isFinite)) continue;
    words.push({ text, confidence: confidence!, left: left!, top: top!, width: width!, height: height!, block: block!, paragraph: paragraph!, line: line! });
  }
  return words;
}
