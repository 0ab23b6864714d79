// The opaque page cursor of a memory's segment listing: where the last page ended, bound to the filter it was issued
// under (a cursor used with another filter is refused).
export interface SegmentCursor {
  /** Last row id served. */
  a: number;
  /** Filter text and case sensitivity the cursor was issued under. */
  f: string;
  c: boolean;
}
export const encodeCursor = (c: SegmentCursor) => Buffer.from(JSON.stringify(c)).toString('base64url');
export function decodeCursor(value: string): SegmentCursor | undefined {
  try {
    const c = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<SegmentCursor>;
    return Number.isSafeInteger(c.a) && c.a! >= 0 && typeof c.f === 'string' && typeof c.c === 'boolean' ? (c as SegmentCursor) : undefined;
  } catch {
    return undefined;
  }
}
