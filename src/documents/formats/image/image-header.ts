// Reads an image's type and pixel size from its header, so oversized images are refused before they are decoded.
import { DocumentFormatError } from '../format.js';

export type ImageType = 'png' | 'jpeg';

export interface ImageHeader {
  type: ImageType;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The decoder (Skia) reads the same headers; this only peeks at the size, it does not decode anything. */
export function readImageHeader(input: Buffer): ImageHeader {
  if (input.length >= 8 && input.subarray(0, 8).equals(PNG_SIGNATURE)) return pngHeader(input);
  if (input.length >= 3 && input[0] === 0xff && input[1] === 0xd8 && input[2] === 0xff) return jpegHeader(input);
  throw new DocumentFormatError('The file is not a PNG or JPEG image.');
}

function pngHeader(input: Buffer): ImageHeader {
  // the first chunk must be IHDR: length(4) "IHDR" width(4) height(4)
  if (input.length < 24 || input.toString('latin1', 12, 16) !== 'IHDR') throw new DocumentFormatError('The PNG image is damaged: its header is missing.');
  return { type: 'png', width: input.readUInt32BE(16), height: input.readUInt32BE(20) };
}

/** Start-of-frame markers carry the size: SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

function jpegHeader(input: Buffer): ImageHeader {
  let i = 2;
  while (i + 4 <= input.length) {
    if (input[i] !== 0xff) break;
    const marker = input[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    // markers without a length: TEM and RST0–RST7
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      i += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break; // image data or end before any frame header
    const length = input.readUInt16BE(i + 2);
    if (isStartOfFrame(marker)) {
      if (i + 9 > input.length) break;
      return { type: 'jpeg', height: input.readUInt16BE(i + 5), width: input.readUInt16BE(i + 7) };
    }
    if (length < 2) break;
    i += 2 + length;
  }
  throw new DocumentFormatError('The JPEG image is damaged: its frame header is missing.');
}
