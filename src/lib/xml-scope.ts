// The open elements of a strict XML parse with saxes: a nesting limit and namespace resolution, both O(1) per element.
// saxes' own namespace mode (xmlns: true) resolves every unprefixed name by walking the whole stack of open elements,
// which is quadratic in nesting depth (a 448 KB file 64k levels deep took 35 s); so parsers run saxes in its plain
// mode and hand each start and end tag to an XmlScope, which keeps one stack of bindings per prefix instead.

export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';
export const XMLNS_NAMESPACE = 'http://www.w3.org/2000/xmlns/';

/** A start tag with its names resolved. */
export interface ScopedTag {
  name: string;
  prefix: string;
  local: string;
  /** Namespace URI of the element ('' when none). */
  uri: string;
}

/** A start tag that breaks a namespace rule or the nesting limit; the message says which, like saxes' own errors. */
export class XmlScopeError extends Error {}

function split(name: string): { prefix: string; local: string } {
  const colon = name.indexOf(':');
  if (colon < 0) return { prefix: '', local: name };
  const prefix = name.slice(0, colon);
  const local = name.slice(colon + 1);
  if (prefix === '' || local === '' || local.includes(':')) throw new XmlScopeError(`malformed name: ${name}.`);
  return { prefix, local };
}

/** The Namespaces in XML rules for a declaration (the same checks saxes makes in its namespace mode). */
function checkBinding(prefix: string, uri: string): void {
  if (prefix === 'xml' && uri !== XML_NAMESPACE) throw new XmlScopeError(`xml prefix must be bound to ${XML_NAMESPACE}.`);
  if (prefix === 'xmlns') throw new XmlScopeError('the xmlns prefix may not be declared.');
  if (uri === XMLNS_NAMESPACE) throw new XmlScopeError(`no prefix may be bound to ${XMLNS_NAMESPACE}.`);
  if (uri === XML_NAMESPACE && prefix !== 'xml') throw new XmlScopeError(`only the xml prefix may be bound to ${XML_NAMESPACE}.`);
  if (prefix !== '' && uri === '') throw new XmlScopeError(`invalid attempt to undefine prefix ${prefix} in XML 1.0.`);
}

export class XmlScope {
  /** Bound URIs per prefix, innermost last. */
  private readonly bindings = new Map<string, string[]>([['xml', [XML_NAMESPACE]]]);
  /** The prefixes each open element declared, to unbind at its end tag. */
  private readonly declared: string[][] = [];

  constructor(private readonly maxDepth: number) {}

  /** Open elements. */
  get depth(): number {
    return this.declared.length;
  }

  private resolve(prefix: string): string | undefined {
    const list = this.bindings.get(prefix);
    return list === undefined || list.length === 0 ? undefined : list[list.length - 1];
  }

  /**
   * Enters an element (call for self-closing ones too, then `close`): binds its declarations and resolves its name
   * and prefixed attributes. Throws XmlScopeError past the nesting limit or for a namespace error.
   */
  open(name: string, attributes: Record<string, string>): ScopedTag {
    if (this.declared.length >= this.maxDepth) throw new XmlScopeError(`elements are nested more than ${this.maxDepth} levels deep.`);
    const own: string[] = [];
    this.declared.push(own);
    for (const attr in attributes) {
      const declares = attr === 'xmlns' ? '' : attr.startsWith('xmlns:') ? split(attr).local : undefined;
      if (declares === undefined) continue;
      const uri = attributes[attr]!.trim();
      checkBinding(declares, uri);
      let list = this.bindings.get(declares);
      if (!list) this.bindings.set(declares, (list = []));
      list.push(uri);
      own.push(declares);
    }
    const { prefix, local } = split(name);
    if (prefix === 'xmlns') throw new XmlScopeError('tags may not have "xmlns" as prefix.');
    const uri = this.resolve(prefix);
    if (prefix !== '' && uri === undefined) throw new XmlScopeError(`unbound namespace prefix: ${JSON.stringify(prefix)}.`);
    // Prefixed attributes must be bound, and two may not share a namespace and local name (saxes checks the others).
    let expanded: Set<string> | undefined;
    for (const attr in attributes) {
      if (attr === 'xmlns' || !attr.includes(':')) continue;
      const a = split(attr);
      if (a.prefix === 'xmlns') continue;
      const aUri = this.resolve(a.prefix);
      if (aUri === undefined) throw new XmlScopeError(`unbound namespace prefix: ${JSON.stringify(a.prefix)}.`);
      const key = `{${aUri}}${a.local}`;
      expanded ??= new Set();
      if (expanded.has(key)) throw new XmlScopeError(`duplicate attribute: ${key}.`);
      expanded.add(key);
    }
    return { name, prefix, local, uri: uri ?? '' };
  }

  /** Leaves the innermost open element. */
  close(): void {
    const own = this.declared.pop();
    if (own) for (const prefix of own) this.bindings.get(prefix)!.pop();
  }
}
