// Types for the sentencex package (native sentence segmenter), which ships none.
declare module 'sentencex' {
  /** Sentences of `text` in language `lang` (ISO 639-1); pieces keep their trailing blanks and concatenate to the input. */
  export function segment(lang: string, text: string): string[];
}
