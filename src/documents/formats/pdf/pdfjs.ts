// pdf.js, loaded on first use rather than when the formats are imported: its legacy build installs core-js polyfills
// for the whole process (Array.prototype.push among them, ~10× slower than V8's), and the HTTP thread, which imports
// the format list but never reads a PDF, must not pay for them on every request (docs/benchmarks.md).
import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loaded: Promise<PdfJs> | undefined;

export function pdfjs(): Promise<PdfJs> {
  return (loaded ??= import('pdfjs-dist/legacy/build/pdf.mjs'));
}

/**
 * Opens a PDF the way every reader here does: no eval, no system or embedded font loading, carrying on past errors;
 * `maxImageSize` (pixels) makes pdf.js skip decoding larger images. A document that fails to open has its loading
 * task stopped (it would go on working) before the error is thrown.
 */
export async function openPdf(input: Buffer, maxImageSize?: number): Promise<PDFDocumentProxy> {
  const { getDocument } = await pdfjs();
  const loading = getDocument({
    // pdf.js takes ownership of (detaches) the buffer it is given
    data: new Uint8Array(input),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
    ...(maxImageSize === undefined ? {} : { maxImageSize }),
  });
  try {
    return await loading.promise;
  } catch (err) {
    await loading.destroy().catch(() => {});
    throw err;
  }
}
