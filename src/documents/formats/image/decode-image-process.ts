// Child process entry: decodes one PNG/JPEG (stdin) into RGBA pixels (stdout), because the decoder (Skia in
// @napi-rs/canvas 0.1.x) crashes the whole process on some damaged files instead of throwing (issue #1309 upstream).
import { createCanvas, loadImage } from '@napi-rs/canvas';

const MAX_PIXELS = Number(process.argv[2] ?? '0');

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const image = await loadImage(Buffer.concat(chunks));
  const { width, height } = image;
  if (width === 0 || height === 0 || width * height > MAX_PIXELS) {
    process.stderr.write(`size ${width}x${height}`);
    process.exit(3);
  }
  const ctx = createCanvas(width, height).getContext('2d');
  ctx.drawImage(image, 0, 0);
  const data = ctx.getImageData(0, 0, width, height).data;
  const head = Buffer.alloc(8);
  head.writeUInt32BE(width, 0);
  head.writeUInt32BE(height, 4);
  process.stdout.write(head);
  process.stdout.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

main().catch((err: Error) => {
  process.stderr.write(err.message);
  process.exit(2);
});
