// Remote Settings `filter_expression`s (Mozilla's JEXL subset) as they occur in the translation model index:
// comparisons of `env.…` properties with string literals, joined by `&&` / `||`, with parentheses and `!`. Evaluated by
// a small recursive-descent parser over a token list (linear in the expression's length, its length and nesting
// bounded); nothing is ever `eval`ed.
// An expression outside this subset is an error, which the index reader takes as "not for this client".

export class FilterExpressionError extends Error {}

/** The client the expressions are evaluated for: property path → value (e.g. "env.appinfo.OS" → "Linux"). */
export type FilterEnvironment = Readonly<Record<string, string>>;

type Token = { kind: 'str' | 'ident' | 'op'; text: string };

const TOKEN = /(==|!=|&&|\|\||[()!])|'([^'\\]*)'|"([^"\\]*)"|([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)/y;
const SPACE = /\s*/y;

/** Longer expressions are refused: the index's are under 100 characters. */
export const MAX_FILTER_LENGTH = 4096;
/** Deeper nesting of `(` and `!` is refused (a bound on the parser's recursion). */
export const MAX_FILTER_DEPTH = 32;

function tokenize(source: string): Token[] {
  if (source.length > MAX_FILTER_LENGTH) {
    throw new FilterExpressionError(`unsupported filter expression of ${source.length} characters (at most ${MAX_FILTER_LENGTH})`);
  }
  const tokens: Token[] = [];
  let at = 0;
  for (;;) {
    SPACE.lastIndex = at;
    SPACE.exec(source);
    at = SPACE.lastIndex;
    if (at >= source.length) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(source);
    if (!m) throw new FilterExpressionError(`unsupported filter expression ${JSON.stringify(source)} (at character ${at})`);
    at = TOKEN.lastIndex;
    if (m[1] !== undefined) tokens.push({ kind: 'op', text: m[1] });
    else if (m[4] !== undefined) tokens.push({ kind: 'ident', text: m[4] });
    else tokens.push({ kind: 'str', text: m[2] ?? m[3]! });
  }
  return tokens;
}

/** True when the expression holds in `env`; an empty expression always holds. */
export function evaluateFilterExpression(source: string, env: FilterEnvironment): boolean {
  const tokens = tokenize(source);
  if (tokens.length === 0) return true;
  let pos = 0;
  const fail = (what: string): never => {
    throw new FilterExpressionError(`unsupported filter expression ${JSON.stringify(source)} (${what})`);
  };
  const peek = (text: string) => tokens[pos]?.kind === 'op' && tokens[pos]!.text === text;
  const value = (): string | undefined => {
    const t = tokens[pos++] ?? fail('ends too early');
    if (t.kind === 'str') return t.text;
    // own properties only: `constructor`, `toString` or `__proto__` must not reach Object.prototype
    if (t.kind === 'ident') return Object.hasOwn(env, t.text) ? env[t.text] : undefined;
    return fail(`unexpected ${t.text}`);
  };
  let depth = 0;
  const nested = (inner: () => boolean): boolean => {
    if (++depth > MAX_FILTER_DEPTH) fail(`nested deeper than ${MAX_FILTER_DEPTH}`);
    const result = inner();
    depth--;
    return result;
  };
  const primary = (): boolean => {
    if (peek('!')) {
      pos++;
      return !nested(primary);
    }
    if (peek('(')) {
      pos++;
      const inner = nested(or);
      if (!peek(')')) fail('a parenthesis is not closed');
      pos++;
      return inner;
    }
    const left = value();
    if (peek('==') || peek('!=')) {
      const negate = tokens[pos++]!.text === '!=';
      return (left === value()) !== negate;
    }
    return left !== undefined && left !== '';
  };
  const and = (): boolean => {
    let result = primary();
    while (peek('&&')) {
      pos++;
      result = primary() && result;
    }
    return result;
  };
  const or = (): boolean => {
    let result = and();
    while (peek('||')) {
      pos++;
      result = and() || result;
    }
    return result;
  };
  const result = or();
  if (pos !== tokens.length) fail(`unexpected ${tokens[pos]!.text}`);
  return result;
}

/** Firefox's name of this operating system (`env.appinfo.OS`). */
export function firefoxOsName(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'WINNT' : platform === 'darwin' ? 'Darwin' : platform === 'linux' ? 'Linux' : platform;
}

/** The client Tolk is: Firefox desktop on this OS, on the release channel, or on nightly when pre-releases are asked for. */
export function serverEnvironment(preRelease: boolean): FilterEnvironment {
  return { 'env.appinfo.OS': firefoxOsName(), 'env.channel': preRelease ? 'nightly' : 'release' };
}
