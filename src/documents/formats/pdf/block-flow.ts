// Sizes of a reflowed block's translation: how large it fits in its lines' rooms, and, where a paragraph of the same
// flow follows it (a block cut at a paragraph break), the one scale at which both fit in the room of the two.
import { fitText, fontFor, wrap, type Metrics } from './fonts.js';
import type { TextBlock } from './layout.js';
import { lineRooms } from './line-room.js';

/** A block's translation wrapped in its lines' rooms, as large as fits above `maxBottom`. */
export function fitBlock(metrics: Metrics, block: TextBlock, text: string, height = block.top - block.maxBottom) {
  const roomsAt = (size: number) => lineRooms(block, size, (block.lineGap * size) / block.size).map((r) => ({ ...r, width: r.width + 0.01 }));
  const fitted = fitText(text, metrics, block.size, block.lineGap, (s) => roomsAt(s).map((r) => r.width), height, block.lines.length === 1);
  return { fitted, rooms: roomsAt(fitted.size) };
}

/** The height of a block's translation (already drawable) wrapped at `size` in its lines' rooms, ascent and descent included. */
function heightAt(metrics: Metrics, block: TextBlock, text: string, size: number): number {
  const gap = (block.lineGap * size) / block.size;
  const lines = wrap(text, metrics, size, lineRooms(block, size, gap).map((r) => r.width + 0.01));
  return 1.05 * size + (lines.length - 1) * gap;
}

/**
 * The height `block` may take when `next`, the paragraph below it in the same flow, is drawn on after it: the first
 * scale (from 1 down, as fitText tries them) at which both fit between the block's top and the next one's bottom room.
 * Else the block's own room, as for any other block. `own` is the block's translation as drawn (drawable in its face). The next block is measured in its plain face (its source
 * glyphs, if any, are measured as the fallback characters of about their width).
 */
export function sharedHeight(metrics: Metrics, block: TextBlock, own: string, next: TextBlock, nextText: string): number {
  const room = block.top - next.maxBottom;
  const between = block.lines[block.lines.length - 1]!.v - next.lines[0]!.v;
  const nextMetrics = fontFor(next.font).metrics;
  const nextDrawable = nextMetrics.drawable(nextText.replace(/\s+/gu, ' ').trim());
  // (fitText's smallest size too: smaller scales would cut a block's lines into ever more rooms)
  for (let f = 1; f * block.size >= Math.max(block.size / 3, Math.min(block.size, 4)); f *= 0.94) {
    const height = heightAt(metrics, block, own, f * block.size);
    // from this block's top to the next one's first baseline, then that one's lines and descent
    const needed = height - 0.25 * f * block.size + f * between + heightAt(nextMetrics, next, nextDrawable, f * next.size) - 0.8 * f * next.size;
    if (needed <= room + 0.01) return height + 0.01;
  }
  return block.top - block.maxBottom;
}

/** A block moved `down` the page, its room below where it was. */
export function lower(block: TextBlock, down: number): TextBlock {
  if (down <= 0) return block;
  return { ...block, top: block.top - down, bottom: block.bottom - down, lines: block.lines.map((l) => ({ ...l, v: l.v - down })) };
}
