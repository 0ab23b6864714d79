// Writes a minimal Word (docx) package around a body of WordprocessingML paragraphs: what a format converting to docx
// needs (styles Normal, Heading1–3, ListParagraph; page size; document language), zipped with yazl.
import yazl from 'yazl';

export const W_NS = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const WP_NS = 'http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing';
const R_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Page setup in twentieths of a point (twips), as the section properties write it. */
export interface WordPage {
  width: number;
  height: number;
  margin: { top: number; right: number; bottom: number; left: number };
}

export interface WordImage {
  /** Relationship id the body's drawing refers to (see `imageParagraph`). */
  id: string;
  png: Buffer;
}

export interface WordDocument {
  /** The body's paragraphs (`<w:p>` elements with the `w:` prefix), in order. */
  body: string;
  /** PNG images the body shows (word/media). */
  images?: readonly WordImage[];
  page: WordPage;
  /** Language of the text ("es", "pt-BR"), written as the default run language. */
  lang: string;
}

const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const CONTENT_TYPES =
  `${XML_DECL}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Default Extension="png" ContentType="image/png"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
  '<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
  '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>' +
  '</Types>';

const PACKAGE_RELS =
  `${XML_DECL}<Relationships xmlns="${PKG_RELS}">` +
  `<Relationship Id="rId1" Type="${OFFICE_RELS}/officeDocument" Target="word/document.xml"/>` +
  '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
  '</Relationships>';

const mediaName = (n: number) => `media/image${n + 1}.png`;

function documentRels(images: readonly WordImage[]): string {
  return (
    `${XML_DECL}<Relationships xmlns="${PKG_RELS}">` +
    `<Relationship Id="rId1" Type="${OFFICE_RELS}/styles" Target="styles.xml"/>` +
    images.map((img, n) => `<Relationship Id="${attr(img.id)}" Type="${OFFICE_RELS}/image" Target="${mediaName(n)}"/>`).join('') +
    '</Relationships>'
  );
}

const EMU_PER_POINT = 12_700;

/** A paragraph showing one image inline, `width` × `height` points; `n` numbers the drawing (unique, from 1). */
export function imageParagraph(relationshipId: string, n: number, width: number, height: number): string {
  const cx = Math.max(1, Math.round(width * EMU_PER_POINT));
  const cy = Math.max(1, Math.round(height * EMU_PER_POINT));
  const a = 'http://schemas.openxmlformats.org/drawingml/2006/main';
  const pic = 'http://schemas.openxmlformats.org/drawingml/2006/picture';
  return (
    `<w:p><w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="${cx}" cy="${cy}"/>` +
    `<wp:docPr id="${n}" name="Picture ${n}"/><a:graphic xmlns:a="${a}"><a:graphicData uri="${pic}"><pic:pic xmlns:pic="${pic}">` +
    `<pic:nvPicPr><pic:cNvPr id="${n}" name="image${n}.png"/><pic:cNvPicPr/></pic:nvPicPr>` +
    `<pic:blipFill><a:blip r:embed="${attr(relationshipId)}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
    `<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr>` +
    '</pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>'
  );
}

const CORE =
  `${XML_DECL}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
  'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Tolk</dc:creator></cp:coreProperties>';

function heading(level: number, halfPoints: number): string {
  return (
    `<w:style w:type="paragraph" w:styleId="Heading${level}"><w:name w:val="heading ${level}"/><w:basedOn w:val="Normal"/>` +
    '<w:next w:val="Normal"/><w:uiPriority w:val="9"/><w:qFormat/>' +
    `<w:pPr><w:keepNext/><w:keepLines/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="${level - 1}"/></w:pPr>` +
    `<w:rPr><w:b/><w:sz w:val="${halfPoints}"/><w:szCs w:val="${halfPoints}"/></w:rPr></w:style>`
  );
}

function styles(lang: string): string {
  return (
    `${XML_DECL}<w:styles xmlns:w="${W_NS}">` +
    `<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="${attr(lang)}"/></w:rPr></w:rPrDefault>` +
    '<w:pPrDefault><w:pPr><w:spacing w:after="120" w:line="264" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>' +
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>' +
    heading(1, 36) +
    heading(2, 30) +
    heading(3, 26) +
    '<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/>' +
    '<w:uiPriority w:val="34"/><w:qFormat/><w:pPr><w:spacing w:after="60"/><w:ind w:left="720" w:hanging="360"/></w:pPr></w:style>' +
    '</w:styles>'
  );
}

function documentXml(doc: WordDocument): string {
  const { width, height, margin } = doc.page;
  const r = (n: number) => Math.max(0, Math.round(n));
  return (
    `${XML_DECL}<w:document xmlns:w="${W_NS}" xmlns:r="${R_NS}" xmlns:wp="${WP_NS}"><w:body>${doc.body}` +
    `<w:sectPr><w:pgSz w:w="${r(width)}" w:h="${r(height)}"/>` +
    `<w:pgMar w:top="${r(margin.top)}" w:right="${r(margin.right)}" w:bottom="${r(margin.bottom)}" w:left="${r(margin.left)}" ` +
    'w:header="720" w:footer="720" w:gutter="0"/></w:sectPr></w:body></w:document>'
  );
}

/** The docx package's bytes. */
export function writeWordPackage(doc: WordDocument): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    const mtime = new Date();
    const add = (name: string, xml: string) => zip.addBuffer(Buffer.from(xml, 'utf8'), name, { mtime });
    // [Content_Types].xml first, as Office writes it
    add('[Content_Types].xml', CONTENT_TYPES);
    add('_rels/.rels', PACKAGE_RELS);
    add('docProps/core.xml', CORE);
    add('word/document.xml', documentXml(doc));
    add('word/styles.xml', styles(doc.lang));
    add('word/_rels/document.xml.rels', documentRels(doc.images ?? []));
    // PNG is compressed already
    (doc.images ?? []).forEach((img, n) => zip.addBuffer(img.png, `word/${mediaName(n)}`, { mtime, compress: false }));
    zip.end();
  });
}
