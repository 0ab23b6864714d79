// Lines that share a baseline (table rows, columns side by side) and the geometry helpers of the page layout.
import type { TextLine } from './layout.js';

/** A horizontal gap wider than this (in em) separates two lines on the same baseline: table cells, columns. */
export const COLUMN_GAP_EM = 0.6;

/** Lines on one baseline beyond which it is not treated as a table row. */
const MAX_ROW_LINES = 64;

export const angleKey = (a: number) => Math.round((a * 180) / Math.PI);

/** Min and max without spreading (a page may have more items than a call takes arguments). */
export function minOf<T>(items: readonly T[], f: (t: T) => number): number {
  let m = Number.POSITIVE_INFINITY;
  for (const t of items) m = Math.min(m, f(t));
  return m;
}
export function maxOf<T>(items: readonly T[], f: (t: T) => number): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const t of items) m = Math.max(m, f(t));
  return m;
}

/**
 * For lines that share their baseline with another line (table rows, columns of text): how far right they could
 * have gone, the next line's start on that baseline or the page's right text margin (taken as wide as the left
 * one; `bounds` is the page box). Lines are bucketed by baseline.
 */
export function rowLimits(lines: TextLine[], bounds: readonly [number, number, number, number]): Map<TextLine, number> {
  const buckets = new Map<string, TextLine[]>();
  const key = (l: TextLine, dv: number) => `${angleKey(l.pieces[0]!.angle)}:${Math.round(l.v / 4) + dv}`;
  for (const l of lines) {
    const k = key(l, 0);
    const bucket = buckets.get(k);
    if (bucket) bucket.push(l);
    else buckets.set(k, [l]);
  }
  const textRight = new Map<number, number>();
  for (const l of lines) {
    const angle = l.pieces[0]!.angle;
    if (textRight.has(angleKey(angle))) continue;
    const us = [bounds[0], bounds[2]].flatMap((x) => [bounds[1], bounds[3]].map((y) => x * Math.cos(angle) + y * Math.sin(angle)));
    const same = lines.filter((o) => angleKey(o.pieces[0]!.angle) === angleKey(angle));
    const left = minOf(same, (o) => o.u0);
    textRight.set(angleKey(angle), Math.max(maxOf(same, (o) => o.u1), Math.max(...us) - (left - Math.min(...us))));
  }
  const limits = new Map<TextLine, number>();
  for (const l of lines) {
    // a crowded baseline (more lines than a table has cells) is not looked at: the scan stays linear
    if ([-1, 0, 1].some((dv) => (buckets.get(key(l, dv))?.length ?? 0) > MAX_ROW_LINES)) continue;
    let limit = Number.POSITIVE_INFINITY;
    let shared = false;
    for (const dv of [-1, 0, 1]) {
      for (const o of buckets.get(key(l, dv)) ?? []) {
        if (o === l || Math.abs(o.v - l.v) >= 0.35 * l.size || (o.u0 < l.u1 && o.u1 > l.u0)) continue;
        shared = true;
        if (o.u0 >= l.u1) limit = Math.min(limit, o.u0 - COLUMN_GAP_EM * l.size);
      }
    }
    if (shared) limits.set(l, Number.isFinite(limit) ? limit : textRight.get(angleKey(l.pieces[0]!.angle))!);
  }
  return limits;
}

/** Whether `line`'s first word would have fitted at the end of `last` (so the line was broken on purpose). */
export function fitsAfter(last: TextLine, line: TextLine, limit: number): boolean {
  if (/[-\u00ad\u2010]$/u.test(last.text)) return false;
  const first = line.pieces[0]!;
  const word = /^\S+/u.exec(line.text)?.[0] ?? '';
  const perChar = first.text.length > 0 ? first.width / first.text.length : 0.5 * first.size;
  return last.u1 + 0.3 * last.size + word.length * perChar <= limit;
}
