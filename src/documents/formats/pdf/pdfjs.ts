// pdf.js, loaded on first use rather than when the formats are imported: its legacy build installs core-js polyfills
// for the whole process (Array.prototype.push among them, ~10× slower than V8's), and the HTTP thread, which imports
// the format list but never reads a PDF, must not pay for them on every request (docs/benchmarks.md).
export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loaded: Promise<PdfJs> | undefined;

export function pdfjs(): Promise<PdfJs> {
  return (loaded ??= import('pdfjs-dist/legacy/build/pdf.mjs'));
}
