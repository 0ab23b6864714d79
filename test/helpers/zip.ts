// Test helper: reads every entry of a ZIP (name, content) and writes one from entries, with yauzl/yazl as the formats do.
import yauzl from 'yauzl';
import yazl from 'yazl';

export async function unzipAll(buf: Buffer): Promise<[string, Buffer][]> {
  const zip = await yauzl.fromBufferPromise(buf, { lazyEntries: true });
  const out: [string, Buffer][] = [];
  for await (const entry of zip.eachEntry()) {
    if (entry.fileName.endsWith('/')) continue;
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(entry)) chunks.push(c as Buffer);
    out.push([entry.fileName, Buffer.concat(chunks)]);
  }
  return out;
}

export function zipOf(entries: [string, Buffer | string][]): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, data] of entries) z.addBuffer(Buffer.isBuffer(data) ? data : Buffer.from(data), name);
  z.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    z.outputStream.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
  });
}
