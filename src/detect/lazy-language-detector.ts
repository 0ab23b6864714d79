// The detector as the services hold it: loaded on the first detection (see LazyLanguageDetector).
import { DETECTOR_LANGUAGES, EldLanguageDetector, type DetectionOutcome, type LanguageDetection, type LanguageDetector } from './language-detector.js';

/**
 * The detector, loaded by preload() at start (the default) or by the first detection (TOLK_DETECTOR_LOAD=first-use):
 * eld's database and the n-gram model hold ~150 MiB that a server which never detects need not pay, but loading holds
 * the event loop ~1 s. Concurrent first detections wait for the one load; a failed load is tried again by the next.
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
    return (await this.loaded()).detect(text);
  }

  /** Loads the tables now (at start, before requests arrive). */
  async preload(): Promise<void> {
    await this.loaded();
  }

  private loaded(): Promise<LanguageDetector> {
    this.loading ??= this.load().catch((err: unknown) => {
      this.loading = undefined;
      throw err;
    });
    return this.loading;
  }
}
