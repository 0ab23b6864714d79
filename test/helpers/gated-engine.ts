// An engine that answers only once released: a document (or a request) stays unfinished as long as a test wants.
import type { TranslationEngine } from '../../src/engines/engine.js';

export class GatedEngine implements TranslationEngine {
  readonly name = 'gated';
  readonly features = { context: false };
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  release(): void {
    this.open();
  }
  async start() {}
  async close() {
    this.open();
  }
  pairs() {
    return [{ source: 'en', target: 'es', formality: false }];
  }
  async translate(_pair: unknown, segments: string[]): Promise<string[]> {
    await this.gate;
    return segments.map((s) => `[es] ${s}`);
  }
}
