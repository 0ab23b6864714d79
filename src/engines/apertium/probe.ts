// Probing a mode: one short sentence through a fresh pipeline; a crash, a timeout or empty output means it does not work.
import type { ApertiumMode } from './mode-discovery.js';
import { ApertiumPipeline, type TaggerReset } from './pipeline.js';
import { deformat, reformat } from './stream-format.js';

const PROBES: Readonly<Record<string, string>> = {
  en: 'The house is big.',
  es: 'La casa es grande.',
  pt: 'A casa é grande.',
  ca: 'La casa és gran.',
  fr: 'La maison est grande.',
  it: 'La casa è grande.',
  ro: 'Casa este mare.',
  sv: 'Huset är stort.',
  da: 'Huset er stort.',
  nb: 'Huset er stort.',
  nn: 'Huset er stort.',
  ru: 'Дом большой.',
  uk: 'Будинок великий.',
};

export type ProbeResult = { ok: true; pipeline: ApertiumPipeline } | { ok: false; reason: string; timedOut: boolean };

/** Runs the mode once; on success the still running pipeline is handed over (to keep warm, or to close). */
export async function probeMode(mode: ApertiumMode, timeoutMs: number, reset?: TaggerReset): Promise<ProbeResult> {
  const text = PROBES[mode.source.split('-')[0]!] ?? 'Hello world.';
  const p = new ApertiumPipeline(mode.name, mode.stages, reset);
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  try {
    const [raw] = await Promise.race([
      p.run([deformat(text)]),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          timedOut = true;
          reject(new Error(`probe timed out after ${timeoutMs} ms`));
        }, timeoutMs);
      }),
    ]);
    const out = reformat(raw ?? '').trim();
    if (!out) throw new Error('empty output');
    // give a crashing later stage a moment to be noticed (some Debian modes print then die)
    if (!p.alive) throw new Error(p.lastError);
    return { ok: true, pipeline: p };
  } catch (err) {
    await p.close();
    return { ok: false, reason: (err as Error).message, timedOut };
  } finally {
    clearTimeout(timer);
  }
}
