// eld's n-gram database in typed arrays. eld ships each database as one JavaScript object literal (81,206 keys for the
// small one); importing it cost the detector thread ~150 MiB of resident memory (the parser's zones and a 48 MiB object
// graph), and its thread kept most of it after the load. Here the same file is read as text into an open-addressing
// table of packed keys (~3 MiB), and eld's own detection code runs on it: the outcomes are eld's, to the bit.
import { readFile } from 'node:fs/promises';

/** The part of an eld instance the detector uses (the package's own interfaces are not exported). */
export interface EldInstance {
  detect(text: string): { language: string; getScores(): Record<string, number> };
}

/** What eld's internal loader takes: the database's header, and its n-grams as anything that answers `ngrams[key]`. */
interface EldData {
  type: string;
  languages: Record<string, string>;
  ngrams: object;
}

interface EldFactory {
  createEld(): { instance: EldInstance; loadData(data: EldData): string };
}

export type EldDatabaseName = 'extrasmall' | 'small' | 'medium' | 'large';

/** An eld key is at most this many characters: ' ' + four bytes + ' '. */
const MAX_KEY_CHARS = 6;

/** Per key character, its code (each below 256: eld writes every UTF-8 byte as one Latin-1 character). */
const CHAR_BASE = 256;

/** The key's length is packed above its characters, so "ab" and "ab\0" differ. */
const LENGTH_UNIT = CHAR_BASE ** MAX_KEY_CHARS;

/** A key packed into one number (below 2^51: exact in a double), or 0 when it cannot be one of eld's keys. */
export function packEldKey(key: string): number {
  if (key.length === 0 || key.length > MAX_KEY_CHARS) return 0;
  let packed = 0;
  for (let i = key.length - 1; i >= 0; i--) {
    const code = key.charCodeAt(i);
    if (code >= CHAR_BASE) return 0;
    packed = packed * CHAR_BASE + code;
  }
  return packed + key.length * LENGTH_UNIT;
}

function slotHash(packed: number, mask: number): number {
  const low = packed >>> 0;
  const high = Math.floor(packed / 2 ** 32);
  return (Math.imul(low ^ Math.imul(high, 0x85ebca6b), 0x9e3779b1) >>> 0) & mask;
}

/** eld's n-grams: packed key → its run of (language index, score) entries. */
export class EldNgramTable {
  private readonly keys: Float64Array;
  private readonly starts: Uint32Array;
  private readonly lengths: Uint8Array;
  private readonly languages: Uint16Array;
  private readonly scores: Uint16Array;
  private readonly mask: number;
  private entries = 0;

  /** Room for at most `maxKeys` keys and `maxEntries` entries. */
  constructor(maxKeys: number, maxEntries: number) {
    let slots = 1;
    while (slots < 2 * maxKeys) slots *= 2;
    this.keys = new Float64Array(slots);
    this.starts = new Uint32Array(slots);
    this.lengths = new Uint8Array(slots);
    this.mask = slots - 1;
    this.languages = new Uint16Array(maxEntries);
    this.scores = new Uint16Array(maxEntries);
  }

  /** Adds a key with its entries (language index, score, language index, score, …). */
  add(key: string, pairs: readonly number[]): void {
    const packed = packEldKey(key);
    if (packed === 0) throw new Error(`eld database: key ${JSON.stringify(key)} is not a packable n-gram`);
    const slot = this.slotOf(packed);
    if (this.keys[slot] === packed) throw new Error(`eld database: key ${JSON.stringify(key)} appears twice`);
    const n = pairs.length / 2;
    if (n > 255 || this.entries + n > this.scores.length) throw new Error('eld database: more entries than the file holds');
    this.keys[slot] = packed;
    this.starts[slot] = this.entries;
    this.lengths[slot] = n;
    for (let k = 0; k < n; k++) {
      const language = pairs[2 * k]!;
      const score = pairs[2 * k + 1]!;
      if (!(Number.isInteger(language) && Number.isInteger(score) && language >= 0 && score >= 0 && language < 2 ** 16 && score < 2 ** 16)) {
        throw new Error(`eld database: entry ${language}:${score} of ${JSON.stringify(key)} is out of range`);
      }
      this.languages[this.entries] = language;
      this.scores[this.entries++] = score;
    }
  }

  /** The key's scores as eld's own database holds them ({ language index: score }), or undefined. */
  get(key: string): Record<number, number> | undefined {
    const packed = packEldKey(key);
    if (packed === 0) return undefined;
    const slot = this.slotOf(packed);
    if (this.keys[slot] !== packed) return undefined;
    const scores: Record<number, number> = {};
    const start = this.starts[slot]!;
    for (let e = start; e < start + this.lengths[slot]!; e++) scores[this.languages[e]!] = this.scores[e]!;
    return scores;
  }

  /** The slot holding `packed`, or else the free slot where it would go. */
  private slotOf(packed: number): number {
    const { keys, mask } = this;
    for (let h = slotHash(packed, mask); ; h = (h + 1) & mask) {
      const k = keys[h]!;
      if (k === packed || k === 0) return h;
    }
  }
}

/**
 * Reads eld's database file (`export const ngramsData = {type:'S60',languages:{0:'am',…},ngrams:{' Lé4L':{0:176},…}}`):
 * the object-literal subset eld writes (quoted or bare keys, strings, integers, booleans, nested objects), with the
 * n-grams going straight into the table. Linear in the file.
 */
export function readEldDatabase(source: string): { type: string; languages: Record<string, string>; table: EldNgramTable } {
  const reader = new LiteralReader(source, source.indexOf('{', source.indexOf('ngramsData')));
  let type = '';
  let languages: Record<string, string> = {};
  let table: EldNgramTable | undefined;
  reader.readObject((key) => {
    if (key === 'ngrams') table = reader.readNgrams();
    else if (key === 'languages') languages = reader.readPlainObject() as Record<string, string>;
    else if (key === 'type') type = String(reader.readValue());
    else reader.readValue();
  });
  if (!table || !type) throw new Error('eld database: no type or n-grams in the file');
  return { type, languages, table };
}

class LiteralReader {
  constructor(
    private readonly text: string,
    private at: number,
  ) {
    if (at < 0) throw new Error('eld database: no object literal in the file');
  }

  /** Reads `{ key: value, … }`, calling `onKey` with the reader at each value. */
  readObject(onKey: (key: string) => void): void {
    this.expect('{');
    if (this.peek() === '}') return void this.at++;
    for (;;) {
      const key = this.readKey();
      this.expect(':');
      onKey(key);
      const next = this.next();
      if (next === '}') return;
      if (next !== ',') this.fail(`',' or '}'`);
      if (this.peek() === '}') return void this.at++; // a trailing comma
    }
  }

  readPlainObject(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.readObject((key) => (out[key] = this.readValue()));
    return out;
  }

  readValue(): unknown {
    const c = this.peek();
    if (c === '{') return this.readPlainObject();
    if (c === "'" || c === '"') return this.readString();
    const token = this.readToken();
    if (token === 'true' || token === 'false') return token === 'true';
    const n = Number(token);
    if (token === '' || Number.isNaN(n)) this.fail('a value');
    return n;
  }

  /** The n-grams object: the keys and their { language: score } objects go into the table, nothing else is kept. */
  readNgrams(): EldNgramTable {
    // every key and every entry is followed by a ':', so the colons left in the file bound both
    let colons = 0;
    for (let i = this.text.indexOf(':', this.at); i >= 0; i = this.text.indexOf(':', i + 1)) colons++;
    const table = new EldNgramTable(colons, colons);
    const pairs: number[] = [];
    this.readObject((key) => {
      pairs.length = 0;
      this.readObject((language) => pairs.push(Number(language), Number(this.readToken())));
      table.add(key, pairs);
    });
    return table;
  }

  private readKey(): string {
    const c = this.peek();
    return c === "'" || c === '"' ? this.readString() : this.readToken();
  }

  private readString(): string {
    const quote = this.next();
    let out = '';
    let from = this.at;
    for (;;) {
      const c = this.text[this.at];
      if (c === undefined) this.fail('the end of a string');
      if (c === quote) break;
      if (c === '\\') {
        out += this.text.slice(from, this.at);
        const escaped = this.text[this.at + 1];
        if (escaped === undefined || !"'\"\\".includes(escaped)) this.fail('a quote or backslash after a backslash');
        out += escaped;
        this.at += 2;
        from = this.at;
      } else this.at++;
    }
    out += this.text.slice(from, this.at++);
    return out;
  }

  /** A bare key or scalar: up to the next ':', ',', '}' or space. */
  private readToken(): string {
    const from = this.at;
    while (this.at < this.text.length && !':,} \n\r\t'.includes(this.text[this.at]!)) this.at++;
    return this.text.slice(from, this.at);
  }

  private peek(): string | undefined {
    let c = this.text.charCodeAt(this.at);
    while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = this.text.charCodeAt(++this.at);
    return this.text[this.at];
  }

  private next(): string | undefined {
    const c = this.peek();
    this.at++;
    return c;
  }

  private expect(c: string): void {
    if (this.next() !== c) this.fail(`'${c}'`);
  }

  private fail(wanted: string): never {
    throw new Error(`eld database: expected ${wanted} at character ${this.at - 1}`);
  }
}

/** eld's package entry, from which its data files and detection module are found. */
const ELD_ENTRY = import.meta.resolve('eld');

/** The path of one of eld's database files. */
export function eldDatabaseUrl(name: EldDatabaseName): URL {
  return new URL(`../ngrams/${name}.js`, ELD_ENTRY);
}

/** An eld instance detecting with the named database, held in an EldNgramTable. */
export async function loadEld(name: EldDatabaseName = 'small'): Promise<EldInstance> {
  const { type, languages, table } = readEldDatabase(await readFile(eldDatabaseUrl(name), 'utf8'));
  // eld's detection module (its package entry exports only instances that import the whole literal)
  const { createEld } = (await import(new URL('../languageDetector.js', ELD_ENTRY).href)) as EldFactory;
  const { instance, loadData } = createEld();
  const ngrams = new Proxy(Object.create(null) as object, { get: (_, key) => (typeof key === 'string' ? table.get(key) : undefined) });
  if (!loadData({ type, languages, ngrams })) throw new Error(`eld database ${name}: not loaded`);
  return instance;
}
