// A second PocketSphinx decoder in keyword-spotting mode (-kws) fed the same audio as the main recogniser: it reports
// spoken terms the main decoder's language model misses. Its dictionary holds only the terms (one entry per term,
// the words' phones joined), so the main decoder's dictionary and language model are never modified.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callAsync, type PocketSphinxLib } from './pocketsphinx-lib.js';
import type { TermDetection } from './term-correction.js';

export interface SpottableTerm {
  term: string;
  phones: string[];
}

export interface KeywordSpotterOptions {
  /** Acoustic model directory (the en-us HMM). */
  hmmDir: string;
  /**
   * Detection threshold per keyphrase. 1e-20 spotted Kubernetes, Grafana and Zendesk in flite speech with no false
   * alarm in a trial here; 1e-30 spotted "Zendesk" in a sentence about Jenkins and Docker. Short terms still fire
   * by chance ("Jira", 3 phones, even at 1e-11): term-correction.ts places a detection only over words that sound alike.
   */
  threshold: number;
  /** Decoder arguments shared with the main recogniser (VAD settings). */
  extraArgs: string[];
}

export class KeywordSpotter {
  private seen = new Map<string, number>();
  private inflight: Promise<unknown> = Promise.resolve();
  private freed = false;

  private constructor(
    private readonly lib: PocketSphinxLib,
    private readonly decoder: unknown,
    private readonly terms: SpottableTerm[],
  ) {
    lib.startStream(decoder);
    lib.startUtt(decoder);
  }

  static async create(lib: PocketSphinxLib, terms: SpottableTerm[], options: KeywordSpotterOptions): Promise<KeywordSpotter> {
    const dir = await mkdtemp(join(tmpdir(), 'tolk-kws-'));
    try {
      // Keyphrases are the synthetic words t0, t1, …: written forms may hold spaces or characters the decoder splits on.
      await writeFile(join(dir, 'terms.dict'), terms.map((t, i) => `t${i} ${t.phones.join(' ')}\n`).join(''));
      await writeFile(join(dir, 'terms.kws'), terms.map((_, i) => `t${i} /${options.threshold.toExponential()}/\n`).join(''));
      const decoder = await lib.init([
        '-hmm', options.hmmDir,
        '-dict', join(dir, 'terms.dict'),
        '-kws', join(dir, 'terms.kws'),
          ...options.extraArgs,
      ]);
      if (!decoder) throw new Error('PocketSphinx keyword spotter failed to initialise');
      return new KeywordSpotter(lib, decoder, terms);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Feeds one block; returns the terms reported after it (stamped with `atMs`, the stream time after the block). */
  async process(block: Int16Array, atMs: number): Promise<TermDetection[]> {
    if (this.freed) return [];
    this.inflight = callAsync(this.lib.processRaw, this.decoder, block, block.length, 0, 0);
    await this.inflight;
    if (this.freed) return [];
    return this.newDetections(atMs);
  }

  /** Ends the spotter's utterance (with the main recogniser's), returns what it reported last, starts the next. */
  restart(atMs: number): TermDetection[] {
    if (this.freed) return [];
    this.lib.endUtt(this.decoder);
    const last = this.newDetections(atMs);
    this.seen = new Map();
    this.lib.startUtt(this.decoder);
    return last;
  }

  /** The hypothesis lists every detection of the utterance: new ones are those whose count went up. */
  private newDetections(atMs: number): TermDetection[] {
    const hyp = String(this.lib.getHyp(this.decoder, [0]) ?? '');
    const counts = new Map<string, number>();
    for (const token of hyp.split(/\s+/)) if (/^t\d+$/.test(token)) counts.set(token, (counts.get(token) ?? 0) + 1);
    const out: TermDetection[] = [];
    for (const [token, n] of counts) {
      const term = this.terms[Number(token.slice(1))];
      for (let k = this.seen.get(token) ?? 0; term && k < n; k++) out.push({ term: term.term, phones: term.phones, reportedAtMs: atMs });
    }
    this.seen = counts;
    return out;
  }

  free(): void {
    if (this.freed) return;
    this.freed = true;
    void this.inflight.catch(() => {}).then(() => this.lib.free(this.decoder));
  }
}
