// Segment texts that join with "": the reference client concatenates concluded segments without a separator, and the
// interface's own example carries the separator on the following segment (' today?'). Scripts written without spaces
// between words get none.

/** Languages whose script puts no space between words or sentences. */
const UNSPACED = new Set(['zh', 'ja', 'th', 'lo', 'km', 'my']);

/** Tracks what one transcript (source or one target language) has concluded, to space its next segments. */
export class TranscriptSpacing {
  private started = false;
  private readonly spaced: boolean;

  constructor(language: string) {
    this.spaced = !UNSPACED.has(language.toLowerCase().split('-')[0]!);
  }

  /**
   * The text of a tentative segment following what was concluded (trimmed; '' stays ''). `language`: the segment's
   * own, when the recogniser detected one other than the session's.
   */
  tentative(text: string, language?: string): string {
    const t = text.trim();
    const spaced = language ? !UNSPACED.has(language.toLowerCase().split('-')[0]!) : this.spaced;
    return t && this.started && spaced ? ` ${t}` : t;
  }

  /** The text of the next concluded segment; what it returns is part of the transcript from then on. */
  conclude(text: string, language?: string): string {
    const t = this.tentative(text, language);
    if (t) this.started = true;
    return t;
  }
}
