// The detector as the services hold it: loaded on the first detection (see LazyLanguageDetector).
import { DETECTOR_LANGUAGES, EldLanguageDetector, type DetectionOutcome, type LanguageDetection, type LanguageDetector } from './language-detector.js';

/**
 * Loads the detector on the first detection, not at start: eld's database and the n-gram model hold ~150 MiB that a
 * server which never detects (every request names its source) need not pay. Concurrent first detections wait for the
 * one load; a failed load is tried again by the next detection.
 */
export class LazyLanguageDetector implements LanguageDetection {
  readonly languages = DETECTOR_LANGUAGES;
  private loading: Promise<LanguageDetector> | undefined;

  constructor(private readonly load: () => Promise<LanguageDetector> = () => EldLanguageDetector.create()) {}

  /** True once the tables are loaded (or loading). */
  get started(): boolean {
    return this.loading !== undefined;
  }

  async detect(text: string): Promise<DetectionOutcome> {
    this.loading ??= this.load().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return (await this.loading).detect(text);
  }
}
