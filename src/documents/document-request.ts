// What a document upload asks for (its languages, formality, output and resources) and how the translation core is
// asked for it; the wire parser is src/http/requests/document-request.ts.
import { textOptions, type Formality, type TranslationSpec } from '../translate/translate-job.js';

export interface DocumentRequest {
  targetLang: string;
  sourceLang: string | undefined;
  formality: Formality;
  /** Requested output extension, lower case; undefined = same as input. */
  outputFormat: string | undefined;
  enableWatermark: boolean;
  glossaryIds: string[];
  styleId: string | undefined;
  translationMemoryId: string | undefined;
  translationMemoryThreshold: number | undefined;
  /** File name from the `filename` field (else the file part's own). */
  fileName: string | undefined;
}

/** What the translation core is asked for a document: its languages, formality and resources; layout is kept. */
export function documentSpec(
  doc: Pick<DocumentRequest, 'targetLang' | 'sourceLang' | 'formality'> &
    Partial<Pick<DocumentRequest, 'glossaryIds' | 'styleId' | 'translationMemoryId' | 'translationMemoryThreshold'>>,
): TranslationSpec {
  return {
    sourceLang: doc.sourceLang,
    targetLang: doc.targetLang,
    options: textOptions({ formality: doc.formality, preserveFormatting: true }),
    customization: {
      glossaryIds: doc.glossaryIds ?? [],
      styleId: doc.styleId,
      translationMemoryId: doc.translationMemoryId,
      translationMemoryThreshold: doc.translationMemoryThreshold,
      customInstructions: [],
    },
  };
}
