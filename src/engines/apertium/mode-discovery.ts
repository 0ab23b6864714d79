// Reads Apertium *.mode files and turns each usable one into a Tolk pair plus the argv of every pipeline stage.

import { accessSync, constants } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_VARIANTS, toTolkCode } from './language-codes.js';

export interface ApertiumMode {
  /** Mode name as Apertium knows it, e.g. "es-pt_BR". */
  name: string;
  file: string;
  source: string;
  target: string;
  /** One argv per stage, already in null-flush mode (-z) with $1/$2 substituted. */
  stages: string[][];
}

export interface SkippedMode {
  name: string;
  reason: string;
}

/** Commands that do not understand -z (same exception list as apertium-apy). */
const NO_Z = /^(vislcg3|cg-mwesplit|hfst-tokeni[sz]e|divvun-suggest)$/;

/** Splits one shell-like mode line into stages of words; supports '…' and "…" quoting and backslash escapes. */
export function splitModeLine(line: string): string[][] {
  const stages: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | null = null;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (c === '|') {
      endWord();
      stages.push(words);
      words = [];
    } else if (/\s/.test(c)) {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endWord();
  stages.push(words);
  return stages.filter((s) => s.length > 0);
}

/**
 * Turns a mode line into runnable stages: `$1` becomes `-n` (generation without unknown-word marks, what
 * `apertium -u` does; `-g` would add `*`/`#`/`@` marks), `$2` is dropped (it only carries the tagger's
 * `-m` ambiguity flag), and `-z` is inserted after each command name so every stage flushes on `\0`.
 */
export function buildStages(line: string): string[][] {
  return splitModeLine(line).flatMap(splitOldTransfer).map((words) => {
    const argv = words.filter((w) => w !== '$2').map((w) => (w === '$1' ? '-n' : w));
    const [cmd, ...args] = argv;
    if (!cmd) return [];
    if (NO_Z.test(path.basename(cmd))) return argv;
    // -d makes the HMM tagger report the ambiguity classes that change its state (see pipeline.ts)
    const debug = path.basename(cmd) === 'apertium-tagger' && args.includes('-g') ? ['-d'] : [];
    return [cmd, '-z', ...debug, ...args.filter((a) => a !== '-z')];
  }).filter((s) => s.length > 0);
}

/**
 * Old-style modes give apertium-transfer the bilingual dictionary as a third file; the `apertium` command rewrites
 * that stage (apertium-wblank-mode) into `lt-proc -b BIDIX | apertium-transfer -b T1X BIN`, which also keeps the
 * analysis of words the transfer rules do not match. Run them the same way.
 */
function splitOldTransfer(words: string[]): string[][] {
  const [cmd, ...args] = words;
  if (!cmd || path.basename(cmd) !== 'apertium-transfer' || args.includes('-b')) return [words];
  const files = args.filter((a) => !a.startsWith('-'));
  if (files.length !== 3) return [words];
  const bidix = files[2]!;
  const flags = args.filter((a) => a.startsWith('-'));
  return [
    ['lt-proc', '-b', bidix],
    [cmd, '-b', ...flags, files[0]!, files[1]!],
  ];
}

/** Parses a mode name ("spa-eng_US") into Tolk codes, or explains why it is skipped. */
export function parseModeName(
  name: string,
  variants: Readonly<Record<string, string>> = DEFAULT_VARIANTS,
): { source: string; target: string } | { reason: string } {
  const parts = name.split('-');
  if (parts.length !== 2) return { reason: 'not a plain source-target mode' };
  const source = toTolkCode(parts[0]!, variants);
  const target = toTolkCode(parts[1]!, variants);
  if (!source || !target) return { reason: 'language or variant has no Tolk code' };
  if (source === target) return { reason: 'same source and target' };
  return { source, target };
}

/** A mode is "plain" when neither side has an Apertium variant suffix; plain modes win over variants. */
function plainness(name: string): number {
  return (name.match(/_/g) ?? []).length;
}

/**
 * Lists usable modes in `modesDir`, one per Tolk pair (the plain mode wins when two map to the same pair),
 * plus the skipped ones with a reason.
 */
export async function discoverModes(
  modesDir: string,
  variants: Readonly<Record<string, string>> = DEFAULT_VARIANTS,
): Promise<{ modes: ApertiumMode[]; skipped: SkippedMode[] }> {
  let entries: string[];
  try {
    entries = await readdir(modesDir);
  } catch {
    return { modes: [], skipped: [] };
  }
  const skipped: SkippedMode[] = [];
  const byPair = new Map<string, ApertiumMode>();
  for (const entry of entries.filter((e) => e.endsWith('.mode')).sort()) {
    const name = entry.slice(0, -'.mode'.length);
    const parsed = parseModeName(name, variants);
    if ('reason' in parsed) {
      skipped.push({ name, reason: parsed.reason });
      continue;
    }
    const file = path.join(modesDir, entry);
    let line: string;
    try {
      line = (await readFile(file, 'utf8')).trim();
    } catch (err) {
      skipped.push({ name, reason: `unreadable: ${(err as Error).message}` });
      continue;
    }
    const stages = line ? buildStages(line) : [];
    if (stages.length === 0) {
      skipped.push({ name, reason: 'empty mode file' });
      continue;
    }
    const mode: ApertiumMode = { name, file, source: parsed.source, target: parsed.target, stages };
    const key = `${mode.source}>${mode.target}`;
    const existing = byPair.get(key);
    if (!existing) {
      byPair.set(key, mode);
    } else if (plainness(name) < plainness(existing.name) || (plainness(name) === plainness(existing.name) && name.length < existing.name.length)) {
      skipped.push({ name: existing.name, reason: `same pair as ${name}` });
      byPair.set(key, mode);
    } else {
      skipped.push({ name, reason: `same pair as ${existing.name}` });
    }
  }
  return { modes: [...byPair.values()], skipped };
}

/** Whether `cmd` runs: an executable path, or a name found executable on PATH. */
function executable(cmd: string, pathDirs: readonly string[]): boolean {
  const candidates = cmd.includes('/') ? [cmd] : pathDirs.map((d) => path.join(d, cmd));
  return candidates.some((c) => {
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * A check without starting anything (start-up lists pairs this way): every stage's program is executable and every
 * absolute file it names is readable. Returns what is missing, or null.
 */
export function modeInstalled(mode: ApertiumMode, pathDirs: readonly string[] = (process.env.PATH ?? '').split(':').filter(Boolean)): string | null {
  for (const [cmd, ...args] of mode.stages) {
    if (!executable(cmd!, pathDirs)) return `program not found: ${cmd}`;
    for (const arg of args) {
      if (!arg.startsWith('/')) continue;
      try {
        accessSync(arg, constants.R_OK);
      } catch {
        return `file not found: ${arg}`;
      }
    }
  }
  return null;
}
