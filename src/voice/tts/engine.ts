// Text-to-speech engine interface and the offline default: espeak-ng for every language it has, flite's 16 kHz
// voices for English (clearer than espeak-ng's); both run as short child processes writing WAV to stdout.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWav } from '../audio/pcm.js';

export type VoiceGender = 'male' | 'female';

export interface SynthesizedSpeech {
  samples: Int16Array;
  sampleRate: number;
}

export interface TextToSpeechEngine {
  /** Whether the language (a target code such as es, pt-br, en-us) can be spoken. */
  supports(language: string): boolean;
  synthesize(text: string, language: string, voice: VoiceGender): Promise<SynthesizedSpeech>;
}

/** Target codes → espeak-ng voice names (those not listed use their base code). */
const ESPEAK_VOICES: Record<string, string> = {
  en: 'en-us', 'en-us': 'en-us', 'en-gb': 'en-gb', pt: 'pt', 'pt-pt': 'pt', 'pt-br': 'pt-br', zh: 'cmn-latn-pinyin',
  'zh-hans': 'cmn-latn-pinyin', 'zh-hant': 'cmn-latn-pinyin', nb: 'nb', no: 'nb', fr: 'fr-fr', es: 'es', de: 'de',
};
/** Base languages espeak-ng speaks among the reference's targets (Tagalog is missing). */
const ESPEAK_LANGS = new Set(
  'ar bg bn ca cs da de el en es et fi fr ga he hr hu id it ja ko lt lv mt nb nl pl pt ro ru sk sl sv th tr uk vi zh'.split(' '),
);

function run(cmd: string, args: string[], timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
    proc.stdout.on('data', (c: Buffer) => chunks.push(c));
    proc.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    proc.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(chunks));
      else reject(new Error(`${cmd} exited with ${code}`));
    });
  });
}

export class EspeakFliteEngine implements TextToSpeechEngine {
  constructor(private readonly options: { useFlite?: boolean; timeoutMs?: number } = {}) {}

  supports(language: string): boolean {
    return ESPEAK_LANGS.has(language.toLowerCase().split('-')[0]!);
  }

  async synthesize(text: string, language: string, voice: VoiceGender): Promise<SynthesizedSpeech> {
    const lang = language.toLowerCase();
    const timeout = this.options.timeoutMs ?? 10_000;
    // "--" ends the options, so a text starting with "-" is never read as one.
    const wav =
      lang.split('-')[0] === 'en' && this.options.useFlite !== false
        ? await this.flite(text, voice, timeout)
        : await run('espeak-ng', ['-v', `${ESPEAK_VOICES[lang] ?? lang.split('-')[0]}+${voice === 'female' ? 'f3' : 'm3'}`, '--stdout', '--', text], timeout);
    const parsed = parseWav(wav);
    return { samples: parsed.samples, sampleRate: parsed.sampleRate };
  }

  /** flite cannot write WAV to a socket (Node's stdio pipes), so it writes a temporary file. */
  private async flite(text: string, voice: VoiceGender, timeout: number): Promise<Buffer> {
    const file = join(tmpdir(), `tolk-flite-${randomBytes(8).toString('hex')}.wav`);
    try {
      await run('flite', ['-voice', voice === 'female' ? 'slt' : 'rms', '-o', file, '-t', text], timeout);
      return await readFile(file);
    } finally {
      await unlink(file).catch(() => {});
    }
  }
}
