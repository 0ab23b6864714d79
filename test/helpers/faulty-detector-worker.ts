// The real detector thread (src/detect/detector-worker.ts) with two faults a test can trigger by text: EXIT_TEXT ends
// the thread (code 3) and HANG_TEXT keeps it busy forever, before the detector sees the batch.
import { parentPort } from 'node:worker_threads';
import type { DetectBatch } from '../../src/detect/detector-worker.js';

export const EXIT_TEXT = 'exit the detector thread now';
export const HANG_TEXT = 'hang the detector thread now';

// (imported by the test for the texts above: only a thread runs the detector)
if (parentPort) {
  // registered before the real worker's listener, so it sees each batch first
  parentPort.on('message', (batch: DetectBatch) => {
    if (batch.texts.includes(EXIT_TEXT)) process.exit(3);
    if (batch.texts.includes(HANG_TEXT)) for (;;);
  });
  await import('../../src/detect/detector-worker.js');
}
