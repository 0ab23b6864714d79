// Plain text: each non-blank line is a segment; line endings, blank lines and indentation are kept byte for byte.
import { countCodePoints, decodeText, type DocumentFormat, type ExtractedDocument } from './format.js';

const LINE = /([^\r\n]*)(\r\n|\n|\r|$)/g;

export const txtFormat: DocumentFormat = {
  id: 'txt',
  extensions: ['txt'],
  contentType: 'text/plain; charset=utf-8',
  maxBytes: 10 * 1024 * 1024,
  minimumBilledCharacters: 0,
  extract(input: Buffer): ExtractedDocument {
    const { text, encode } = decodeText(input, 'txt');
    // pieces: verbatim text between segments; the document is pieces[0] + seg0 + pieces[1] + …
    const pieces: string[] = [''];
    const segments: string[] = [];
    for (const m of text.matchAll(LINE)) {
      if (m[0] === '' && m.index === text.length) break;
      const line = m[1]!;
      const core = /^(\s*)(.*?)(\s*)$/su.exec(line)!;
      if (core[2] === '') {
        pieces[pieces.length - 1] += line + m[2]!;
        continue;
      }
      pieces[pieces.length - 1] += core[1]!;
      segments.push(core[2]!);
      pieces.push(core[3]! + m[2]!);
    }
    return {
      segments: segments.map((s) => ({ text: s, kind: 'text' as const })),
      characters: segments.reduce((n, s) => n + countCodePoints(s), 0),
      rebuild(translations) {
        let out = pieces[0]!;
        segments.forEach((_, i) => {
          out += (translations[i] ?? segments[i]!).replace(/[\r\n]+/g, ' ') + pieces[i + 1]!;
        });
        return encode(out);
      },
    };
  },
};
