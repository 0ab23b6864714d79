// What the image formats need from OCR, so they stay pure: the server injects an implementation (Tesseract).

/** Decoded pixels, RGB 8 bits per channel, row by row (transparency already flattened onto white). */
export interface RgbImage {
  width: number;
  height: number;
  rgb: Buffer;
}

/** One recognized word with its box in pixels and its place in the recognizer's block/paragraph/line layout. */
export interface RecognizedWord {
  text: string;
  /** 0–100 */
  confidence: number;
  left: number;
  top: number;
  width: number;
  height: number;
  block: number;
  paragraph: number;
  line: number;
}

export interface TextRecognizer {
  /**
   * Words in reading order. `language` is the document's source language code ("en", "pt-br") when known;
   * undefined lets the recognizer try every language it has. When `signal` aborts the recognition stops at once.
   */
  recognize(image: RgbImage, language: string | undefined, signal?: AbortSignal): Promise<RecognizedWord[]>;
}
