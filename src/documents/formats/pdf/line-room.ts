// Where each line of a block's translation starts and how far it may run: a reflowed line starts where the source
// line at its height started (an indented first line, a hanging indent, a line after a mark or a number that stays,
// a line beside a float) and ends where that line's room ends, so it is never drawn over what stays beside it.
import { bodyStart, type TextBlock } from './layout.js';

export interface LineRoom {
  start: number;
  width: number;
}

/**
 * The room of each line of `block`'s translation drawn at `size` from its top with baselines `gap` apart, top down;
 * the last entry goes on for further lines. A drawn line takes the start and right edge of the source line whose
 * baseline is nearest to its own (at the source's size, line n is source line n); lines below the source's continue
 * at the body start (where most lines start). Centred and right-aligned blocks keep their one box.
 */
export function lineRooms(block: TextBlock, size: number, gap: number): LineRoom[] {
  const right = block.lines.length === 1 ? block.maxRight : block.right;
  if (block.align === 'center' || block.align === 'right') return [{ start: block.left, width: right - block.left }];
  const last = block.lines.length - 1;
  const body = bodyStart(block.lines);
  const below = { start: body, width: block.lineRight[last]! - body };
  const rooms: LineRoom[] = [];
  // a source line "holds" a drawn line within half its own line gap
  const reach = 0.5 * block.lineGap;
  // source lines run down the page, so the nearest one only moves down as the drawn lines do
  let j = 0;
  for (let v = block.top - 0.8 * size; v > block.lines[last]!.v - reach; v -= gap) {
    while (j < last && Math.abs(block.lines[j + 1]!.v - v) < Math.abs(block.lines[j]!.v - v)) j++;
    const start = block.lines[j]!.u0;
    rooms.push({ start, width: block.lineRight[j]! - start });
  }
  rooms.push(below);
  return rooms;
}
