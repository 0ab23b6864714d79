// PNG and JPEG images (beta): OCR the text, translate each paragraph, paint the translation over the original text
// and encode an image of the same format and size.
import { translateTagged } from '../../../markup/index.js';
import { canvas as canvasModule } from '../canvas.js';
import { countCodePoints, DEFAULT_PIXEL_LIMITS, DocumentFormatError, type DocumentFormat, type ExtractedDocument, type ExtractOptions, type PixelLimits } from '../format.js';
import { readImageHeader, type ImageType } from './image-header.js';
import { decodeIsolated } from './isolated-decoder.js';
import { paragraphsOf } from './paragraphs.js';
import type { Pixels } from './pixels.js';
import type { PaintedText } from './inline-words.js';
import { paint, planParagraphs } from './text-painter.js';
import type { RgbImage, TextRecognizer } from './text-recognizer.js';

/** Uploads up to 10 MiB: phone photos and screenshots fit. */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024;
const JPEG_QUALITY = 92;
export const NO_TEXT_FOUND = 'No text found in the image.';

/** `limits.imagePixels`: pixels decoded at most (about 12 bytes per pixel are held: canvas, pixel copy, OCR input). */
export function createImageFormat(type: ImageType, recognizer: TextRecognizer, limits: PixelLimits = DEFAULT_PIXEL_LIMITS): DocumentFormat {
  return {
    id: type,
    extensions: type === 'png' ? ['png'] : ['jpeg', 'jpg'],
    contentType: type === 'png' ? 'image/png' : 'image/jpeg',
    maxBytes: IMAGE_MAX_BYTES,
    // the reference does not bill image text during the beta
    minimumBilledCharacters: 0,
    extract: (input, options) => extractImage(input, options, type, recognizer, limits.imagePixels),
  };
}

async function extractImage(input: Buffer, options: ExtractOptions, type: ImageType, recognizer: TextRecognizer, maxPixels: number): Promise<ExtractedDocument> {
  const header = readImageHeader(input);
  checkSize(header.width, header.height, maxPixels);
  // the decoder may turn the image by its EXIF orientation: the decoded size is the one painted and recognized
  const decoded = await decodeIsolated(input, maxPixels);
  checkSize(decoded.width, decoded.height, maxPixels);
  const canvas = canvasModule().createCanvas(decoded.width, decoded.height);
  const ctx = canvas.getContext('2d');
  const imageData = new (canvasModule().ImageData)(decoded.data, decoded.width, decoded.height);
  ctx.putImageData(imageData, 0, 0);
  const pixels: Pixels = imageData;

  const words = await recognizer.recognize(flattenToRgb(pixels), options.sourceLang, options.signal);
  const paragraphs = paragraphsOf(words, pixels);
  if (paragraphs.length === 0) throw new DocumentFormatError(NO_TEXT_FOUND);
  // colours and sizes come from the untouched pixels; the pixel copy is not kept for the rebuild
  const plans = planParagraphs(pixels, paragraphs, words);
  const write = (translated: readonly PaintedText[]) => {
    paint(ctx, plans, translated);
    return type === 'png' ? canvas.encode('png') : canvas.encode('jpeg', JPEG_QUALITY);
  };

  return {
    segments: paragraphs.map((p) => ({ text: p.text, kind: 'text' as const })),
    characters: paragraphs.reduce((n, p) => n + countCodePoints(p.text), 0),
    billedCharacters: 0,
    // without the markup layer (a plain-text translator), an unsure word is painted as it was read
    rebuild: (translations) => write(translations),
    // an unsure word travels as an empty tag, so that its original pixels are painted where the engine puts it
    translateWith: async (translate) => write(await translateTagged(paragraphs.map((p) => p.unit), translate, 'placeholders')),
  };
}

function checkSize(width: number, height: number, maxPixels: number): void {
  if (width === 0 || height === 0) throw new DocumentFormatError('The image is empty (zero width or height).');
  if (width * height > maxPixels) {
    throw new DocumentFormatError(`The image is too large: ${width}×${height} pixels; at most ${maxPixels / 1_000_000} megapixels are supported.`);
  }
}

/** OCR input: transparent pixels are composed onto white, as a viewer shows them. */
export function flattenToRgb(px: Pixels): RgbImage {
  const rgb = Buffer.allocUnsafe(px.width * px.height * 3);
  const d = px.data;
  for (let i = 0, j = 0; i < d.length; i += 4, j += 3) {
    const a = d[i + 3]!;
    if (a === 255) {
      rgb[j] = d[i]!;
      rgb[j + 1] = d[i + 1]!;
      rgb[j + 2] = d[i + 2]!;
    } else {
      const white = 255 - a;
      rgb[j] = Math.round((d[i]! * a) / 255) + white;
      rgb[j + 1] = Math.round((d[i + 1]! * a) / 255) + white;
      rgb[j + 2] = Math.round((d[i + 2]! * a) / 255) + white;
    }
  }
  return { width: px.width, height: px.height, rgb };
}
