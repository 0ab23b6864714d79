// The language detector's own thread: loading eld's database and the n-gram model (~1 s of CPU, ~40 MiB) and every
// detection run here, so neither holds the server's event loop. WorkerLanguageDetector starts and talks to it.
import { parentPort } from 'node:worker_threads';
import { EldLanguageDetector, type DetectionOutcome } from './language-detector.js';
import type { LexiconQuestion } from './lexicon-vote.js';

/** The texts of one request (or of the detections asked for in one tick), detected in order. */
export interface DetectBatch {
  id: number;
  texts: string[];
}

export type DetectorReply =
  | { ready: true }
  | { ready: false; message: string }
  | { id: number; outcomes: DetectionOutcome[]; questions: Array<LexiconQuestion | undefined> }
  | { id: number; message: string };

const port = parentPort;
if (!port) throw new Error('detector-worker.js runs as a worker thread');

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

try {
  const detector = await EldLanguageDetector.create();
  port.on('message', (batch: DetectBatch) => {
    let reply: DetectorReply;
    try {
      const outcomes = batch.texts.map((text) => detector.detect(text));
      // unsure short texts come back with what the lexicons are to be asked (the main thread owns their processes)
      reply = { id: batch.id, outcomes, questions: batch.texts.map((text, i) => detector.lexiconQuestion(text, outcomes[i]!)) };
    } catch (err) {
      reply = { id: batch.id, message: messageOf(err) };
    }
    port.postMessage(reply);
  });
  port.postMessage({ ready: true } satisfies DetectorReply);
} catch (err) {
  port.postMessage({ ready: false, message: messageOf(err) } satisfies DetectorReply);
}
