// Reads a translated XLIFF back (strict XML) for tests: every translatable source has a target with the same inline
// codes (names and ids), the target language is set, and the state says translated.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { childElements, parseLocatedXml, type LocatedElement } from '../../src/documents/formats/located-xml.js';

export interface CheckedUnit {
  id: string;
  source: string;
  target: string;
  /** Inline codes of the target as "name#id" in document order. */
  codes: string[];
}

const CODES = new Set(['g', 'x', 'bx', 'ex', 'ph', 'bpt', 'ept', 'it', 'mrk', 'pc', 'sc', 'ec', 'sm', 'em']);

function textOf(el: LocatedElement): string {
  return el.children.map((c) => (c.type === 'text' ? c.text : c.type === 'element' && !['ph', 'bpt', 'ept', 'it'].includes(c.local) ? textOf(c) : '')).join('');
}

function codesOf(el: LocatedElement): string[] {
  return childElements(el).flatMap((c) => [
    ...(CODES.has(c.local) ? [`${c.local}#${c.attributes['id'] ?? c.attributes['startRef'] ?? c.attributes['mid'] ?? ''}`] : []),
    ...(['ph', 'bpt', 'ept', 'it'].includes(c.local) ? [] : codesOf(c)),
  ]);
}

const sorted = (a: string[]) => [...a].sort();

/** All translatable units of a translated XLIFF (1.2 or 2.x), each checked; translate="no" units must have no new target. */
export function checkXliff(out: string, lang: string): CheckedUnit[] {
  const { root } = parseLocatedXml(out, 'translated XLIFF');
  const v2 = root.attributes['version']!.startsWith('2');
  if (v2) assert.equal(root.attributes['trgLang'], lang);
  const units: CheckedUnit[] = [];
  const visit = (el: LocatedElement, translatable: boolean) => {
    const own = el.attributes['translate'];
    const here = own === 'no' ? false : own === 'yes' ? true : translatable;
    if (el.local === 'file' && !v2) assert.equal(el.attributes['target-language'], lang);
    const holders = v2 ? (el.local === 'unit' ? childElements(el, 'segment') : []) : el.local === 'trans-unit' ? [el] : [];
    for (const h of holders) {
      const source = childElements(h, 'source')[0]!;
      const target = childElements(h, 'target')[0];
      if (!here) continue;
      assert.ok(target, `unit ${h.attributes['id']}: no target`);
      if (v2) assert.equal(h.attributes['state'], 'translated');
      else assert.equal(target.attributes['state'], 'translated');
      if (target.attributes['xml:lang'] !== undefined) assert.equal(target.attributes['xml:lang'], lang);
      const segSource = childElements(h, 'seg-source')[0];
      const codes = codesOf(target);
      assert.deepEqual(sorted(codes), sorted(codesOf(segSource ?? source)), `unit ${h.attributes['id']}: codes differ`);
      units.push({ id: h.attributes['id'] ?? '', source: textOf(source), target: textOf(target), codes });
    }
    for (const c of childElements(el)) if (['file', 'body', 'group', 'unit'].includes(c.local) || c.local === 'trans-unit') visit(c, here);
  };
  for (const f of childElements(root, 'file')) visit(f, true);
  return units;
}

/** Whether Debian's xmllint (libxml2-utils) is there for the schema checks. */
export const HAS_XMLLINT = spawnSync('xmllint', ['--version']).status === 0;

/** Validates with xmllint against one of the hand-written XSD subsets in test/fixtures/documents/schemas. */
export function validateXliff(xml: string, xsd: 'xliff-1.2-subset.xsd' | 'xliff-2-core-subset.xsd'): { ok: boolean; message: string } {
  const path = fileURLToPath(new URL(`../../../test/fixtures/documents/schemas/${xsd}`, import.meta.url));
  const r = spawnSync('xmllint', ['--noout', '--schema', path, '-'], { input: xml, encoding: 'utf8' });
  return { ok: r.status === 0, message: r.stderr };
}
