// A translated PDF as an editable Word document: each text block becomes a paragraph in reading order, with its
// size, weight, slant, colour and alignment; larger blocks become headings, list items keep their markers.
import { escapeXmlText } from '../ooxml-text.js';
import { imageParagraph, writeWordPackage, type WordImage, type WordPage } from '../word-package.js';
import type { FontFamily, TextBlock } from './layout.js';
import type { PageImage } from './page-images.js';

export interface DocxPage {
  /** The page box [x0, y0, x1, y1] in points. */
  view: readonly [number, number, number, number];
  blocks: TextBlock[];
  /** texts[i] is what block i says in the result (its translation, or its own text when it is not translated). */
  texts: string[];
  /** The page's images, shown before the first block below their top edge. */
  images?: readonly PageImage[];
}

export interface DocxOptions {
  lang: string;
  /** A paragraph to end the body with (enable_watermark), given the WordprocessingML prefix. */
  appendParagraph?: (prefix: string) => string;
}

/** A block at least this much larger than the body text, and short, is a heading. */
const HEADING_RATIO = 1.15;
const HEADING_MAX_CHARS = 200;
const TWIPS_PER_POINT = 20;
const FONTS: Record<FontFamily, string> = { sans: 'Arial', serif: 'Times New Roman', mono: 'Courier New' };

/** The size most of the translatable text is set in. */
function bodySize(pages: readonly DocxPage[]): number {
  const weight = new Map<number, number>();
  for (const p of pages) for (const b of p.blocks) if (b.translatable) weight.set(round(b.size), (weight.get(round(b.size)) ?? 0) + b.text.length);
  let best = 0;
  let size = 11;
  for (const [s, w] of weight) if (w > best) [best, size] = [w, s];
  return size;
}

const round = (size: number) => Math.round(size * 2) / 2;

/** Heading level (1–3) by size: the largest heading size is Heading1, the next Heading2, the rest Heading3. */
function headingLevels(pages: readonly DocxPage[]): (b: TextBlock) => number | undefined {
  const body = bodySize(pages);
  const isHeading = (b: TextBlock) => b.translatable && b.size >= HEADING_RATIO * body && b.text.length <= HEADING_MAX_CHARS && b.lines.length <= 3;
  const sizes = [...new Set(pages.flatMap((p) => p.blocks.filter(isHeading).map((b) => round(b.size))))].sort((a, b) => b - a);
  return (b) => (isHeading(b) ? Math.min(3, sizes.indexOf(round(b.size)) + 1) : undefined);
}

function runProperties(block: TextBlock): string {
  const font = FONTS[block.font.family];
  const halfPoints = Math.max(2, Math.round(block.size * 2));
  const color = /^#[0-9a-f]{6}$/i.test(block.color) && block.color !== '#000000' ? `<w:color w:val="${block.color.slice(1).toUpperCase()}"/>` : '';
  return (
    `<w:rPr><w:rFonts w:ascii="${font}" w:hAnsi="${font}" w:cs="${font}"/>` +
    (block.font.bold ? '<w:b/><w:bCs/>' : '') +
    (block.font.italic ? '<w:i/><w:iCs/>' : '') +
    color +
    `<w:sz w:val="${halfPoints}"/><w:szCs w:val="${halfPoints}"/></w:rPr>`
  );
}

/** Runs for a text in one style; newlines become line breaks and tabs tab characters. */
function runs(block: TextBlock, text: string): string {
  const rPr = runProperties(block);
  const parts = text.split(/(\r?\n|\t)/u).filter((p) => p !== '');
  return parts
    .map((p) => (p === '\t' ? `<w:r>${rPr}<w:tab/></w:r>` : /\n/u.test(p) ? `<w:r>${rPr}<w:br/></w:r>` : `<w:r>${rPr}<w:t xml:space="preserve">${escapeXmlText(p)}</w:t></w:r>`))
    .join('');
}

function paragraph(props: { style?: string; pageBreak: boolean; align: TextBlock['align'] }, content: string): string {
  const pPr =
    (props.style ? `<w:pStyle w:val="${props.style}"/>` : '') +
    (props.pageBreak ? '<w:pageBreakBefore/>' : '') +
    (props.align === 'center' ? '<w:jc w:val="center"/>' : props.align === 'right' ? '<w:jc w:val="right"/>' : props.align === 'justify' ? '<w:jc w:val="both"/>' : '');
  return `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ''}${content}</w:p>`;
}

const isMarker = (b: TextBlock) => b.lines.length === 1 && b.lines[0]!.marker;

/** Page size from the first page; margins from where the text sits, within sensible bounds. */
function pageSetup(pages: readonly DocxPage[]): WordPage {
  const [x0, y0, x1, y1] = pages[0]?.view ?? [0, 0, 612, 792];
  const blocks = pages.flatMap((p) => p.blocks.filter((b) => Math.abs(b.angle) < 0.01));
  const clamp = (pt: number) => Math.min(2880, Math.max(360, Math.round(pt * TWIPS_PER_POINT)));
  // a loop, not Math.min(...): a long document has more blocks than a call takes arguments
  let left = Number.POSITIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  for (const b of blocks) {
    left = Math.min(left, b.left - x0);
    top = Math.min(top, y1 - b.top);
  }
  const margin = { left: clamp(Number.isFinite(left) ? left : 72), top: clamp(Number.isFinite(top) ? top : 72) };
  return { width: (x1 - x0) * TWIPS_PER_POINT, height: (y1 - y0) * TWIPS_PER_POINT, margin: { ...margin, bottom: margin.top, right: margin.left } };
}

/** The Word document's bytes. */
export function writeTranslatedDocx(pages: readonly DocxPage[], options: DocxOptions): Promise<Buffer> {
  const level = headingLevels(pages);
  const setup = pageSetup(pages);
  const textWidth = (setup.width - setup.margin.left - setup.margin.right) / TWIPS_PER_POINT;
  const body: string[] = [];
  const media: WordImage[] = [];
  pages.forEach((page, n) => {
    let pageBreak = n > 0;
    const pending = [...(page.images ?? [])];
    /** Images whose top is above `top` (all remaining ones when undefined), each as its own paragraph. */
    const placeImages = (top?: number) => {
      for (let k = 0; k < pending.length; ) {
        const image = pending[k]!;
        if (top !== undefined && image.top < top) {
          k++;
          continue;
        }
        pending.splice(k, 1);
        const id = `rIdImage${media.length + 1}`;
        media.push({ id, png: image.png });
        // no wider than the text column
        const scale = Math.min(1, textWidth / image.width);
        const xml = imageParagraph(id, media.length, image.width * scale, image.height * scale);
        body.push(pageBreak ? xml.replace('<w:p>', '<w:p><w:pPr><w:pageBreakBefore/></w:pPr>') : xml);
        pageBreak = false;
      }
    };
    for (let i = 0; i < page.blocks.length; i++) {
      const block = page.blocks[i]!;
      if (Math.abs(block.angle) < 0.01) placeImages(block.top);
      const text = page.texts[i] ?? block.text;
      // a block with nothing to say (text kept as a picture) leaves no empty paragraph
      if (text === '') continue;
      const next = page.blocks[i + 1];
      if (isMarker(block) && next?.translatable) {
        // a list item: its marker, a tab to the hanging indent, the item's text
        const content = `${runs(block, text)}<w:r>${runProperties(next)}<w:tab/></w:r>${runs(next, page.texts[i + 1] ?? next.text)}`;
        body.push(paragraph({ style: 'ListParagraph', pageBreak, align: 'left' }, content));
        i++;
      } else {
        const h = level(block);
        body.push(paragraph({ style: h ? `Heading${h}` : undefined, pageBreak, align: block.align }, runs(block, text)));
      }
      pageBreak = false;
    }
    placeImages();
    // a page without text still starts a new page
    if (pageBreak) body.push(paragraph({ pageBreak, align: 'left' }, ''));
  });
  if (options.appendParagraph) body.push(options.appendParagraph('w'));
  return writeWordPackage({ body: body.join(''), images: media, page: setup, lang: options.lang });
}
