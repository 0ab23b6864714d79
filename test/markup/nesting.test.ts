// Deep nesting: every XML/HTML parser refuses nesting past its limit while parsing, and the work per element does not
// grow with depth (counted in operations, not time): saxes' namespace mode, which walks the open-tag stack for every
// element, is never used; XmlScope does the same work for an element at depth 5 as at depth 500.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SaxesParser } from 'saxes';
import { MAX_MARKUP_DEPTH, parseMarkup, TAG_PARSE_FAILED, translateTagged } from '../../src/markup/index.js';
import { ServiceError } from '../../src/lib/errors.js';
import { XmlScope } from '../../src/lib/xml-scope.js';
import { MAX_DEPTH, parseLocatedXml } from '../../src/documents/formats/located-xml.js';
import { PartReader } from '../../src/documents/formats/ooxml-xml.js';
import { DocumentFormatError } from '../../src/documents/formats/format.js';
import { xmlFormat, htmlFormat } from '../../src/documents/formats/markup-formats.js';
import { ditaFormat } from '../../src/documents/formats/dita.js';

const nested = (depth: number, tag = 'a', inner = 'Hello') => `<${tag}>`.repeat(depth) + inner + `</${tag}>`.repeat(depth);
const options = (format: 'xml' | 'html') => ({ format, outlineDetection: true, splittingTags: [], nonSplittingTags: [], ignoreTags: [], targetLang: 'es' });

/** Calls of saxes' namespace lookup (the per-element walk of the open-tag stack) while `fn` runs. */
function resolveCalls(fn: () => void): number {
  const proto = SaxesParser.prototype as unknown as { resolve: (p: string) => string | undefined };
  const original = proto.resolve;
  let calls = 0;
  proto.resolve = function (this: unknown, p: string) {
    calls++;
    return original.call(this, p);
  };
  try {
    fn();
  } finally {
    proto.resolve = original;
  }
  return calls;
}

/** Map lookups made while `fn` runs: XmlScope's whole per-element work is a few of them. */
function mapLookups(fn: () => void): number {
  const original = Map.prototype.get;
  let calls = 0;
  Map.prototype.get = function (this: Map<unknown, unknown>, k: unknown) {
    calls++;
    return original.call(this, k);
  };
  try {
    fn();
  } finally {
    Map.prototype.get = original;
  }
  return calls;
}

describe('nesting limits at parse time', () => {
  it('tag_handling xml and html: the limit is accepted, one level more is the 400 naming the nesting', () => {
    for (const format of ['xml', 'html'] as const) {
      const tag = format === 'xml' ? 'a' : 'div';
      // html parses a fragment into an implied context: its own elements start one level down
      const ok = parseMarkup(nested(MAX_MARKUP_DEPTH - 1, tag), options(format));
      assert.equal(ok.units.length, 1);
      for (const depth of [MAX_MARKUP_DEPTH + 1, 18_000, 200_000]) {
        assert.throws(
          () => parseMarkup(nested(depth, tag), options(format)),
          (err: unknown) =>
            err instanceof ServiceError && err.code === 'invalid_request' && err.message === TAG_PARSE_FAILED && /nested more than 512 levels/.test(err.details?.detail ?? ''),
          `${format} at depth ${depth}`,
        );
      }
    }
  });

  it('xml, dita and html documents past the limit are a DocumentFormatError naming the nesting', async () => {
    for (const format of [xmlFormat, ditaFormat, htmlFormat]) {
      const tag = format.id === 'html' ? 'div' : format.id === 'dita' ? 'p' : 'a';
      const text = `<?xml version="1.0"?><topic id="t">${nested(64_000, tag)}</topic>`;
      await assert.rejects(
        async () => format.extract(Buffer.from(format.id === 'html' ? nested(64_000, tag) : text), { targetLang: 'es' }),
        (err: unknown) => err instanceof DocumentFormatError && /nested more than 512 levels deep\.$/.test(err.message),
        format.id,
      );
    }
  });

  it('xliff (located XML) and OOXML parts refuse nesting past their limits', () => {
    const deep = `<xliff version="1.2">${nested(MAX_DEPTH + 10)}</xliff>`;
    assert.throws(() => parseLocatedXml(deep, 'xliff'), /nested more than 200 levels deep\.$/);
    assert.throws(() => new PartReader(`<w:document xmlns:w="urn:w">${nested(5000, 'w:p')}</w:document>`, () => true, 'docx').read(Infinity), /nested too deeply/);
  });
});

describe('linear parsing', () => {
  it("never uses saxes' namespace mode (its lookup walks the open-tag stack for every element)", () => {
    const calls = resolveCalls(() => {
      parseMarkup(`<x:a xmlns:x="urn:x">${nested(500, 'x:b')}</x:a>`, options('xml'));
      parseLocatedXml(`<xliff xmlns="urn:oasis:names:tc:xliff:document:1.2">${nested(190)}</xliff>`, 'xliff');
      new PartReader(`<w:document xmlns:w="urn:w">${nested(900, 'w:r')}</w:document>`, () => true, 'docx').read(Infinity);
    });
    assert.equal(calls, 0);
  });

  it('an element costs XmlScope the same work at any depth, so a parse is linear in its elements', () => {
    const work = (depth: number) => {
      const scope = new XmlScope(10_000);
      const attrs = { 'xmlns:p': 'urn:p', 'p:id': '1' };
      for (let i = 0; i < depth; i++) scope.open(i % 2 ? 'p:a' : 'a', i % 7 ? {} : attrs);
      const lastOpen = mapLookups(() => scope.open('p:b', { 'p:x': '1' }));
      let total = 0;
      for (let i = 0; i <= depth; i++) total += mapLookups(() => scope.close());
      return { lastOpen, total };
    };
    const shallow = work(5);
    const deep = work(5000);
    assert.equal(deep.lastOpen, shallow.lastOpen);
    assert.ok(deep.lastOpen <= 3, `${deep.lastOpen} lookups for one element`);
    // closing every element costs at most one lookup per declaration
    assert.ok(deep.total <= Math.ceil(5000 / 7) + 1, String(deep.total));
  });

  it('namespace rules still hold: unbound prefixes, reserved prefixes and duplicate expanded attributes are refused', () => {
    const bad = ['<x:a/>', '<a x:b="1"/>', '<a xmlns:p="urn:p" xmlns:q="urn:p" p:b="1" q:b="2"/>', '<xmlns:a/>', '<a xmlns:xml="urn:wrong"/>', '<a:/>'];
    for (const text of bad) assert.throws(() => parseMarkup(text, options('xml')), ServiceError, text);
    const good = ['<a xmlns:p="urn:p"><p:b p:c="1"/></a>', '<a xml:lang="en">x</a>', '<a xmlns="urn:d"><b xmlns="">x</b></a>'];
    for (const text of good) assert.equal(parseMarkup(text, options('xml')).render(parseMarkup(text, options('xml')).units), text);
  });
});

describe('engine work of nested inline tags', () => {
  it('realign translates at most a few times the text of a unit, however deep its inline tags nest', async () => {
    for (const depth of [3, 100, 500]) {
      // every level adds a word before the next one: each span is a different, longer text
      const text = `<p>${Array.from({ length: depth }, (_, i) => `w${i} <b>`).join('')}end${'</b>'.repeat(depth)}</p>`;
      const plan = parseMarkup(text, options('xml'));
      let sent = 0;
      const out = await translateTagged(plan.units, async (texts) => {
        for (const t of texts) sent += t.length;
        return texts;
      }, 'realign');
      const length = plan.units.reduce((n, u) => n + u.text.length, 0);
      assert.ok(sent <= 6 * length, `depth ${depth}: ${sent} characters sent for ${length}`);
      assert.equal(plan.render(out), text);
    }
  });
});
