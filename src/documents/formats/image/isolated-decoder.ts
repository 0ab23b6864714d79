// Decodes an untrusted image in a child process: a decoder crash on a damaged file ends that child, not the server.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DocumentFormatError } from '../format.js';

const CHILD = fileURLToPath(new URL('./decode-image-process.js', import.meta.url));
const TIMEOUT_MS = 60_000;

export interface DecodedImage {
  width: number;
  height: number;
  /** RGBA, not premultiplied, row by row */
  data: Uint8ClampedArray;
}

export function decodeIsolated(input: Buffer, maxPixels: number): Promise<DecodedImage> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, String(maxPixels)], { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: Error | undefined;
    const fail = (e: Error) => {
      failure ??= e;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => fail(new DocumentFormatError('The image could not be decoded in time.')), TIMEOUT_MS);
    child.stdout.on('data', (c: Buffer) => {
      outBytes += c.length;
      // 8 header bytes and 4 per pixel: anything beyond is not what the child was asked for
      if (outBytes > 8 + 4 * maxPixels) fail(new Error('The image decoder answered more pixels than allowed.'));
      else out.push(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      if (err.length < 2048) err += c.toString('utf8');
    });
    child.stdin.on('error', () => {}); // the exit status tells what happened
    child.on('error', (e) => fail(e));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) return reject(failure);
      if (code !== 0) {
        // exit 2: the decoder refused the file with a message; 3: decoded size out of bounds; a signal: it crashed
        const why = code === 3 ? 'its decoded size is empty or over the limit' : code === 2 && err.trim() !== '' ? err.trim().slice(0, 200) : 'the file is damaged';
        return reject(new DocumentFormatError(`The image could not be decoded: ${why}.`));
      }
      const all = Buffer.concat(out);
      const width = all.length >= 8 ? all.readUInt32BE(0) : 0;
      const height = all.length >= 8 ? all.readUInt32BE(4) : 0;
      if (all.length !== 8 + width * height * 4) return reject(new Error('The image decoder answered an incomplete image.'));
      resolve({ width, height, data: new Uint8ClampedArray(all.buffer, all.byteOffset + 8, width * height * 4) });
    });
    child.stdin.end(input);
  });
}
