// The detector's worker thread: answers as the detector itself does, one message per request's texts, and a thread
// that dies, hangs or does not load fails the detections it owed with a clear 503/504 (never a hang) and is replaced by
// the next detection. Its start does not hold the event loop.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { EldLanguageDetector } from '../../src/detect/language-detector.js';
import { WorkerLanguageDetector } from '../../src/detect/worker-language-detector.js';
import { ServiceError, type ErrorCode } from '../../src/lib/errors.js';
import { EXIT_TEXT, HANG_TEXT } from '../helpers/faulty-detector-worker.js';
import { LoopStallMonitor } from '../helpers/loop-stall.js';

const FAULTY = new URL('../helpers/faulty-detector-worker.js', import.meta.url);
const GERMAN = 'Das Wetter ist heute schön und der Hund schläft im Garten.';
const ENGLISH = 'The weather is nice today and the dog sleeps in the garden.';

const serviceError = (code: ErrorCode, message: RegExp) => (err: unknown) =>
  err instanceof ServiceError && err.code === code && message.test(err.message);

let inThread: EldLanguageDetector;
before(async () => {
  inThread = await EldLanguageDetector.create();
});

describe('WorkerLanguageDetector', () => {
  const detectors: WorkerLanguageDetector[] = [];
  const detectorWith = (options: ConstructorParameters<typeof WorkerLanguageDetector>[0]) => {
    const d = new WorkerLanguageDetector(options);
    detectors.push(d);
    return d;
  };
  after(() => detectors.forEach((d) => d.close()));

  it('starts on the first detection without holding the event loop, and sends the texts asked for together as one message', async () => {
    const detector = detectorWith({});
    assert.equal(detector.started, false);
    const posted: unknown[] = [];
    const postMessage = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (this: Worker, value: unknown, transfer?: readonly never[]) {
      posted.push(value);
      return postMessage.call(this, value, transfer);
    };
    const stalls = new LoopStallMonitor(100);
    try {
      const texts = [GERMAN, ENGLISH, 'Le chien dort dans le jardin et il fait beau aujourd’hui.', '', '12345'];
      const outcomes = await Promise.all(texts.map((t) => detector.detect(t)));
      assert.equal(stalls.worst(), undefined, `the first detection stalled the event loop: ${JSON.stringify(stalls.worst())}`);
      assert.deepEqual(outcomes, texts.map((t) => inThread.detect(t)));
      assert.deepEqual(outcomes.map((o) => o.language), ['de', 'en', 'fr', undefined, undefined]);
      assert.deepEqual(posted, [{ id: 1, texts }]);
    } finally {
      Worker.prototype.postMessage = postMessage;
      stalls.stop();
    }
    assert.equal(detector.started, true);
  });

  it('fails the detections of a thread that exits with a 503 naming the cause, and the next detection starts a new thread', async () => {
    const detector = detectorWith({ workerUrl: FAULTY });
    assert.equal((await detector.detect(ENGLISH)).language, 'en');
    const owed = [detector.detect(GERMAN), detector.detect(EXIT_TEXT)];
    for (const detection of owed) await assert.rejects(detection, serviceError('not_ready', /temporarily unavailable .*exited with code 3/));
    assert.equal(detector.started, false);
    assert.equal((await detector.detect(GERMAN)).language, 'de');
  });

  it('fails the detections of a thread past its deadline with a 504 and ends it; the next detection starts a new one', async () => {
    const detector = detectorWith({ workerUrl: FAULTY, detectTimeoutMs: 1000 });
    await detector.preload();
    const started = Date.now();
    await assert.rejects(detector.detect(HANG_TEXT), serviceError('engine_timeout', /did not answer within 1 s/));
    assert.ok(Date.now() - started < 5000, `the deadline took ${Date.now() - started} ms`);
    assert.equal((await detector.detect(ENGLISH)).language, 'en');
  });

  it('fails a detection whose thread does not load in time with a 503, and refuses detections after close', async () => {
    const detector = detectorWith({ startTimeoutMs: 1 });
    await assert.rejects(detector.detect(ENGLISH), serviceError('not_ready', /did not load within 0.001 s/));
    await assert.rejects(detector.preload(), serviceError('not_ready', /did not load/));
    detector.close();
    await assert.rejects(detector.detect(ENGLISH), serviceError('not_ready', /shutting down/));
  });
});
