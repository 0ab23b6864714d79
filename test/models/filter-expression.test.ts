// The filter-expression parser against a direct evaluation of random expression trees, and against random and
// hostile text: it agrees where the grammar holds, and answers anything else with FilterExpressionError only.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateFilterExpression, FilterExpressionError, MAX_FILTER_DEPTH, MAX_FILTER_LENGTH } from '../../src/models/filter-expression.js';
import { prng } from '../helpers/prng.js';

type Tree =
  | { kind: 'cmp'; path: string; op: '==' | '!='; literal: string }
  | { kind: 'truthy'; path: string }
  | { kind: 'not'; inner: Tree }
  | { kind: 'and' | 'or'; left: Tree; right: Tree };

const env = { 'env.appinfo.OS': 'Linux', 'env.channel': 'release', 'env.empty': '' };
const PATHS = ['env.appinfo.OS', 'env.channel', 'env.empty', 'env.missing'];
const LITERALS = ['Linux', 'Android', 'release', 'nightly', ''];

function evaluate(t: Tree): boolean {
  switch (t.kind) {
    case 'cmp':
      return (env[t.path as keyof typeof env] === t.literal) !== (t.op === '!=');
    case 'truthy':
      return Boolean(env[t.path as keyof typeof env]);
    case 'not':
      return !evaluate(t.inner);
    case 'and':
      return evaluate(t.left) && evaluate(t.right);
    case 'or':
      return evaluate(t.left) || evaluate(t.right);
  }
}

/** Written with parentheses around every operand that needs them, random spacing and quote style. */
function render(t: Tree, pick: (n: number) => number): string {
  const space = () => ' '.repeat(pick(3));
  const quote = (s: string) => (pick(2) ? `'${s}'` : `"${s}"`);
  switch (t.kind) {
    case 'cmp':
      return `${t.path}${space()}${t.op}${space()}${quote(t.literal)}`;
    case 'truthy':
      return t.path;
    case 'not':
      return `!${space()}(${render(t.inner, pick)})`;
    case 'and':
    case 'or':
      return `(${render(t.left, pick)})${space()}${t.kind === 'and' ? '&&' : '||'}${space()}(${render(t.right, pick)})`;
  }
}

function randomTree(pick: (n: number) => number, depth: number): Tree {
  const choice = depth >= 4 ? pick(2) : pick(5);
  const path = PATHS[pick(PATHS.length)]!;
  if (choice === 0) return { kind: 'cmp', path, op: pick(2) ? '==' : '!=', literal: LITERALS[pick(LITERALS.length)]! };
  if (choice === 1) return { kind: 'truthy', path };
  if (choice === 2) return { kind: 'not', inner: randomTree(pick, depth + 1) };
  return { kind: choice === 3 ? 'and' : 'or', left: randomTree(pick, depth + 1), right: randomTree(pick, depth + 1) };
}

/** True, false, or FilterExpressionError; anything else thrown fails the test. */
function outcome(source: string): boolean | 'refused' {
  try {
    return evaluateFilterExpression(source, env);
  } catch (err) {
    assert.ok(err instanceof FilterExpressionError, `${JSON.stringify(source.slice(0, 80))} threw ${String(err)}`);
    return 'refused';
  }
}

describe('filter expressions, fuzzed', () => {
  it('agrees with a direct evaluation of 2,000 random expressions', () => {
    const pick = prng(20261127);
    for (let i = 0; i < 2000; i++) {
      const tree = randomTree(pick, 0);
      const source = render(tree, pick);
      assert.equal(evaluateFilterExpression(source, env), evaluate(tree), source);
    }
  });

  it('answers random token soup with a value or FilterExpressionError, never another error', () => {
    const pick = prng(37);
    const pieces = ['env.channel', 'env.appinfo.OS', "'Linux'", '"x"', '==', '!=', '&&', '||', '(', ')', '!', ' ', "'", '|', '=', '&', 'é', '1', '.'];
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const source = Array.from({ length: 1 + pick(12) }, () => pieces[pick(pieces.length)]).join('');
      if (outcome(source) === 'refused') refused++;
    }
    // most soup is not an expression; some is (e.g. "env.channel")
    assert.ok(refused > 1000 && refused < 3000, `${refused} refused`);
  });

  it('reads prototype names as absent properties, not as what Object.prototype holds', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      assert.equal(evaluateFilterExpression(name, env), false, name);
      assert.equal(evaluateFilterExpression(`${name} != 'x'`, env), true, name);
      assert.equal(evaluateFilterExpression(`!${name}`, env), true, name);
    }
    // a repeated property reads the same value each time
    assert.equal(evaluateFilterExpression("env.channel == 'release' && env.channel == 'release' && env.channel != 'x'", env), true);
  });

  it('refuses deep nesting and oversized expressions with FilterExpressionError instead of overflowing the stack', () => {
    const deep = MAX_FILTER_DEPTH + 1;
    assert.equal(outcome(`${'('.repeat(deep)}env.channel${')'.repeat(deep)}`), 'refused');
    assert.equal(outcome(`${'!'.repeat(deep)}env.channel`), 'refused');
    assert.equal(outcome(`${'('.repeat(MAX_FILTER_DEPTH)}env.channel${')'.repeat(MAX_FILTER_DEPTH)}`), true);
    assert.equal(outcome('!'.repeat(MAX_FILTER_LENGTH)), 'refused');
    assert.equal(outcome(`env.channel == '${'x'.repeat(MAX_FILTER_LENGTH)}'`), 'refused');
    // inside the length limit, the nesting limit answers, not the stack
    assert.equal(outcome(`${'('.repeat(2000)}${')'.repeat(2000)}`), 'refused');
  });
});
