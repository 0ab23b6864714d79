// Readers for the three file formats of a Bergamot model, enough to refuse a bad file before the WebAssembly runtime
// aborts on it: Marian's binary model (src/common/binary.cpp in marian-dev), the binary lexical shortlist
// (BinaryShortlistGenerator) and SentencePiece's protobuf vocabulary.

export class ModelFormatError extends Error {}

export interface MarianItemHeader {
  name: string;
  type: number;
  shape: number[];
  dataLength: number;
}

export interface MarianHeaders {
  items: MarianItemHeader[];
  /** Bytes the file must have: headers, names, shapes, padding and every item's data. */
  expectedSize: number;
}

const MARIAN_BINARY_VERSION = 1n;
const MAX_ITEMS = 100_000;

/** Reads the headers of a Marian binary model from its first bytes (throws ModelFormatError when `head` is too short or not one). */
export function readMarianHeaders(head: Buffer): MarianHeaders {
  const need = (n: number) => {
    if (n > head.length) throw new ModelFormatError('not a Marian binary model (header cut short)');
  };
  need(16);
  if (head.readBigUInt64LE(0) !== MARIAN_BINARY_VERSION) throw new ModelFormatError('not a Marian binary model (unknown version)');
  const count = Number(head.readBigUInt64LE(8));
  if (count < 1 || count > MAX_ITEMS) throw new ModelFormatError(`not a Marian binary model (${count} items)`);
  let pos = 16;
  need(pos + count * 32);
  const raw = [];
  for (let i = 0; i < count; i++, pos += 32) {
    raw.push({
      nameLength: Number(head.readBigUInt64LE(pos)),
      type: Number(head.readBigUInt64LE(pos + 8)),
      shapeLength: Number(head.readBigUInt64LE(pos + 16)),
      dataLength: Number(head.readBigUInt64LE(pos + 24)),
    });
  }
  const names = raw.map((r) => {
    need(pos + r.nameLength);
    const name = head.toString('utf8', pos, pos + r.nameLength - 1);
    pos += r.nameLength;
    return name;
  });
  const items = raw.map((r, i) => {
    need(pos + r.shapeLength * 4);
    const shape = Array.from({ length: r.shapeLength }, (_, k) => head.readInt32LE(pos + k * 4));
    pos += r.shapeLength * 4;
    return { name: names[i]!, type: r.type, shape, dataLength: r.dataLength };
  });
  need(pos + 8);
  const offset = Number(head.readBigUInt64LE(pos));
  const expectedSize = pos + 8 + offset + raw.reduce((s, r) => s + r.dataLength, 0);
  return { items, expectedSize };
}

/** The `special:model.yml` item's text (the architecture the runtime builds). */
export function readModelYaml(file: Buffer, headers: MarianHeaders): string {
  let pos = headers.expectedSize - headers.items.reduce((s, i) => s + i.dataLength, 0);
  for (const item of headers.items) {
    if (item.name === 'special:model.yml') {
      const text = file.toString('utf8', pos, pos + item.dataLength);
      const end = text.indexOf('\0');
      return end >= 0 ? text.slice(0, end) : text;
    }
    pos += item.dataLength;
  }
  throw new ModelFormatError('Marian model without special:model.yml');
}

/** `dim-vocabs` of a model.yml (block or flow list), or undefined when absent. */
export function vocabSizesOf(yaml: string): number[] | undefined {
  const flow = /^dim-vocabs:\s*\[([^\]]*)\]/m.exec(yaml);
  if (flow) return flow[1]!.split(',').map((s) => Number(s.trim()));
  const block = /^dim-vocabs:[ \t]*\n((?:[ \t]*-[ \t]*\d+[ \t]*(?:\n|$))+)/m.exec(yaml);
  return block ? [...block[1]!.matchAll(/-\s*(\d+)/g)].map((m) => Number(m[1])) : undefined;
}

export const SHORTLIST_MAGIC = 0xf11a48d5013417f5n;
export const SHORTLIST_HEADER_BYTES = 48;

/** Checks a binary shortlist's magic and that its size is the one its header claims. */
export function checkShortlist(head: Buffer, size: number): void {
  if (head.length < SHORTLIST_HEADER_BYTES || head.readBigUInt64LE(0) !== SHORTLIST_MAGIC) {
    throw new ModelFormatError('not a binary lexical shortlist (bad magic)');
  }
  const offsets = Number(head.readBigUInt64LE(32));
  const ids = Number(head.readBigUInt64LE(40));
  const expected = SHORTLIST_HEADER_BYTES + offsets * 8 + ids * 4;
  if (expected !== size) throw new ModelFormatError(`shortlist is ${size} bytes, its header says ${expected} (truncated?)`);
}

export interface SentencePiece {
  piece: string;
  /** SentencePiece type: 1 normal, 2 unknown, 3 control, 4 user-defined, 6 byte. */
  type: number;
}

/** Pieces of a SentencePiece model (protobuf ModelProto: field 1 = repeated SentencePiece {1 piece, 2 score, 3 type}). */
export function readSentencePieces(buf: Buffer): SentencePiece[] {
  const pieces: SentencePiece[] = [];
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let scale = 1;
    for (;;) {
      if (pos >= buf.length) throw new ModelFormatError('not a SentencePiece model (cut short)');
      const b = buf[pos++]!;
      result += (b & 0x7f) * scale;
      if (!(b & 0x80)) return result;
      scale *= 128;
    }
  };
  const skip = (wire: number): void => {
    if (wire === 0) varint();
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const len = varint();
      pos += len;
    } else throw new ModelFormatError(`not a SentencePiece model (wire type ${wire})`);
  };
  while (pos < buf.length) {
    const key = varint();
    if (key >>> 3 === 1 && (key & 7) === 2) {
      const len = varint();
      const end = pos + len;
      let piece = '';
      let type = 1;
      while (pos < end) {
        const k = varint();
        if (k >>> 3 === 1 && (k & 7) === 2) {
          const n = varint();
          piece = buf.toString('utf8', pos, pos + n);
          pos += n;
        } else if (k >>> 3 === 3 && (k & 7) === 0) type = varint();
        else skip(k & 7);
      }
      pos = end;
      pieces.push({ piece, type });
    } else skip(key & 7);
  }
  if (pos !== buf.length) throw new ModelFormatError('not a SentencePiece model (cut short)');
  if (pieces.length === 0) throw new ModelFormatError('not a SentencePiece model (no pieces)');
  return pieces;
}
