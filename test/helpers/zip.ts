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

/** The smallest docx Word and the docx format read: content types, the package relationship and `word/document.xml`. */
export function minimalDocx(bodyXml: string): Promise<Buffer> {
  const w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  return zipOf([
    ['[Content_Types].xml', '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>'],
    ['_rels/.rels', '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>'],
    ['word/document.xml', `<?xml version="1.0" encoding="UTF-8"?><w:document ${w}><w:body>${bodyXml}<w:sectPr/></w:body></w:document>`],
  ]);
}
