// The images a PDF's pages paint (image XObjects and inline images), decoded by pdf.js and encoded as PNG, with the
// size and place they have on the page: a conversion to another format embeds them where they were.
import { canvas as canvasModule } from '../canvas.js';
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { openPdf, pdfjs } from './pdfjs.js';

export interface PageImage {
  png: Buffer;
  /** Size on the page in points. */
  width: number;
  height: number;
  /** Top edge on the page (user space, y up). */
  top: number;
}

export interface ImageLimits {
  /** Images larger than this many pixels are left out (pdf.js does not decode them). */
  maxPixels: number;
  /** Decoded pixels of the whole document; images beyond are left out. */
  maxTotalPixels: number;
}

interface DecodedImage {
  width: number;
  height: number;
  kind?: number;
  data?: Uint8Array | Uint8ClampedArray;
}

type Matrix = [number, number, number, number, number, number];
const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];
/** Images smaller than this (points) are rules, dots or spacers, not pictures. */
const MIN_SIDE = 4;
/** How long images are waited for in all; those pdf.js has not decoded by then are left out. */
const DECODE_BUDGET_MS = 60_000;
// pdf.js ImageKind
const GRAYSCALE_1BPP = 1;
const RGB_24BPP = 2;
const RGBA_32BPP = 3;

const multiply = (m: Matrix, n: readonly number[]): Matrix => [
  n[0]! * m[0] + n[1]! * m[2],
  n[0]! * m[1] + n[1]! * m[3],
  n[2]! * m[0] + n[3]! * m[2],
  n[2]! * m[1] + n[3]! * m[3],
  n[4]! * m[0] + n[5]! * m[2] + m[4],
  n[4]! * m[1] + n[5]! * m[3] + m[5],
];

/** RGBA pixels of a pdf.js image, or undefined for a kind it does not hand out as pixels. */
function rgba(image: DecodedImage): Uint8ClampedArray | undefined {
  const { width, height, data, kind } = image;
  if (!data || width <= 0 || height <= 0) return undefined;
  const out = new Uint8ClampedArray(width * height * 4);
  if (kind === RGBA_32BPP && data.length >= out.length) out.set(data.subarray(0, out.length));
  else if (kind === RGB_24BPP && data.length >= width * height * 3) {
    for (let i = 0, j = 0; j < out.length; i += 3, j += 4) {
      out[j] = data[i]!;
      out[j + 1] = data[i + 1]!;
      out[j + 2] = data[i + 2]!;
      out[j + 3] = 255;
    }
  } else if (kind === GRAYSCALE_1BPP) {
    // rows padded to whole bytes; a set bit is white
    const stride = (width + 7) >> 3;
    if (data.length < stride * height) return undefined;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const v = data[y * stride + (x >> 3)]! & (0x80 >> (x & 7)) ? 255 : 0;
        const j = (y * width + x) * 4;
        out[j] = out[j + 1] = out[j + 2] = v;
        out[j + 3] = 255;
      }
    }
  } else return undefined;
  return out;
}

function decoded(page: PDFPageProxy, id: string, waitMs: number): Promise<DecodedImage | undefined> {
  const objects = id.startsWith('g_') ? page.commonObjs : page.objs;
  if (waitMs <= 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), waitMs);
    timer.unref();
    try {
      objects.get(id, (obj: unknown) => {
        clearTimeout(timer);
        resolve((obj ?? undefined) as DecodedImage | undefined);
      });
    } catch {
      clearTimeout(timer);
      resolve(undefined);
    }
  });
}

async function png(image: DecodedImage): Promise<Buffer | undefined> {
  const pixels = rgba(image);
  if (!pixels) return undefined;
  const canvas = canvasModule().createCanvas(image.width, image.height);
  canvas.getContext('2d').putImageData(new (canvasModule().ImageData)(pixels, image.width, image.height), 0, 0);
  return canvas.encode('png');
}

/** Every page's images in painting order; a document or image pdf.js cannot read yields no images, never an error. */
export async function readPageImages(input: Buffer, limits: ImageLimits): Promise<PageImage[][]> {
  const { OPS } = await pdfjs();
  let doc: PDFDocumentProxy;
  try {
    doc = await openPdf(input, limits.maxPixels);
  } catch {
    return [];
  }
  const pages: PageImage[][] = [];
  let pixels = 0;
  const deadline = Date.now() + DECODE_BUDGET_MS;
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const list = await page.getOperatorList();
      const images: PageImage[] = [];
      let ctm: Matrix = IDENTITY;
      const saved: Matrix[] = [];
      for (let k = 0; k < list.fnArray.length; k++) {
        const fn = list.fnArray[k]!;
        const args = list.argsArray[k] as unknown[] | null;
        if (fn === OPS.save) saved.push(ctm);
        else if (fn === OPS.restore) ctm = saved.pop() ?? ctm;
        else if (fn === OPS.transform && Array.isArray(args) && args.length === 6) ctm = multiply(ctm, args as number[]);
        else if (fn === OPS.paintFormXObjectBegin) {
          saved.push(ctm);
          const matrix = args?.[0];
          if (Array.isArray(matrix) && matrix.length === 6) ctm = multiply(ctm, matrix as number[]);
        } else if (fn === OPS.paintFormXObjectEnd) ctm = saved.pop() ?? ctm;
        else if (fn === OPS.paintImageXObject || fn === OPS.paintInlineImageXObject) {
          // the image fills the unit square of the current transform
          const width = Math.hypot(ctm[0], ctm[1]);
          const height = Math.hypot(ctm[2], ctm[3]);
          if (width < MIN_SIDE || height < MIN_SIDE) continue;
          const id = args?.[0];
          const image = typeof id === 'string' ? await decoded(page, id, deadline - Date.now()) : (id as DecodedImage | undefined);
          if (!image || pixels + image.width * image.height > limits.maxTotalPixels) continue;
          const data = await png(image).catch(() => undefined);
          if (!data) continue;
          pixels += image.width * image.height;
          const top = Math.max(ctm[5], ctm[5] + ctm[1], ctm[5] + ctm[3], ctm[5] + ctm[1] + ctm[3]);
          images.push({ png: data, width, height, top });
        }
      }
      pages.push(images);
      page.cleanup();
    }
  } catch {
    // a page pdf.js cannot interpret: the images found so far are kept
  } finally {
    await doc.destroy();
  }
  return pages;
}
