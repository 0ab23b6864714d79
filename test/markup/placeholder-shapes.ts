// App strings with each placeholder shape (issue 44), and the checks every translation route must pass on them:
// every placeholder back verbatim (as many times as the source has it), an ICU message's structure unchanged, and
// the words around them translated.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { icuShape } from '../documents/icu-shape.js';

export interface PlaceholderShape {
  name: string;
  text: string;
  /** What must come back verbatim, each as often as in the source. */
  placeholders: string[];
  /** Apertium's Spanish and (through Spanish) Portuguese words around the placeholders. */
  es: RegExp;
  pt: RegExp;
  /** An ICU plural/select message: its structure (argument names, keywords, selectors, `#`) must parse unchanged. */
  icu?: boolean;
}

export const SHAPES: PlaceholderShape[] = [
  { name: '{name}', text: 'Hello {name}, welcome.', placeholders: ['{name}'], es: /^Hola \{name\}, bienvenido\.$/u, pt: /^Olá \{name\}, bem-vindo\.$/u },
  { name: '{0}', text: 'Item {0} of {1} was deleted.', placeholders: ['{0}', '{1}'], es: /Elemento \{0\} de \{1\}.*eliminado/u, pt: /Elemento \{0\} de \{1\}.*eliminado/u },
  { name: '{{count}}', text: '{{count}} new messages in your inbox.', placeholders: ['{{count}}'], es: /\{\{count\}\} mensajes nuevos/u, pt: /\{\{count\}\} mensagens novas/u },
  { name: '%s and %d', text: 'You have %d new messages from %s.', placeholders: ['%d', '%s'], es: /%d mensajes nuevos de %s/u, pt: /%d mensagens novas de %s/u },
  { name: '%1$s', text: 'The file %1$s was saved by %2$s.', placeholders: ['%1$s', '%2$s'], es: /%1\$s.*por %2\$s/u, pt: /%1\$s.*por %2\$s/u },
  { name: '%(name)s', text: 'Hello %(name)s, welcome back.', placeholders: ['%(name)s'], es: /^Hola %\(name\)s, .*bienvenida/u, pt: /^Olá %\(name\)s, .*boas-vindas/u },
  { name: '${user}', text: 'Welcome back, ${user}!', placeholders: ['${user}'], es: /^Bienvenido .*\$\{user\}!$/u, pt: /^Bem-vindo .*\$\{user\}!$/u },
  { name: ':name', text: 'Hello :name, your order has shipped.', placeholders: [':name'], es: /^Hola :name, .*orden/u, pt: /^Olá :name, .*ordem/u },
  { name: '$t(key)', text: 'See $t(terms.title) for the details.', placeholders: ['$t(terms.title)'], es: /\$t\(terms\.title\) para los detalles/u, pt: /\$t\(terms\.title\) para os detalhes/u },
  { name: '<0>…</0>', text: 'Click <0>here</0> to continue.', placeholders: ['<0>', '</0>'], es: /<0>aquí<\/0> para continuar/u, pt: /<0>aqui<\/0> para continuar/u },
  {
    name: 'tags and placeholders nested',
    text: 'Hello <b>{name}</b>, you have <1>{{count}} new messages</1>.',
    placeholders: ['<b>', '</b>', '{name}', '<1>', '</1>', '{{count}}'],
    es: /<b>\{name\}<\/b>, tienes <1>\{\{count\}\} mensajes nuevos<\/1>/u,
    pt: /<b>\{name\}<\/b>, (?:tem|tens) <1>\{\{count\}\} mensagens novas<\/1>/u,
  },
  {
    name: 'ICU plural',
    text: 'You have {count, plural, one {# new message} other {# new messages}}.',
    placeholders: ['{count, plural, one {', '} other {', '#'],
    es: /\{# mensaje nuevo\} other \{# mensajes nuevos\}/u,
    pt: /\{# mensagem nova\} other \{# mensagens novas\}/u,
    icu: true,
  },
  {
    name: 'ICU select',
    text: '{gender, select, male {He is online} female {She is online} other {They are online}}',
    placeholders: ['{gender, select, male {', '} female {', '} other {'],
    es: /^\{gender, select, male \{Es on-line\} female \{Es on-line\} other \{Son on-line\}\}$/u,
    pt: /^\{gender, select, male \{É on-line\} female \{É on-line\} other \{São on-line\}\}$/u,
    icu: true,
  },
];

const occurrences = (text: string, part: string) => text.split(part).length - 1;

/** Every placeholder of the shape back verbatim, as often as in the source, and an ICU message's structure kept. */
export function assertPlaceholdersKept(shape: PlaceholderShape, output: string): void {
  for (const p of shape.placeholders) assert.equal(occurrences(output, p), occurrences(shape.text, p), `${p} in ${JSON.stringify(output)}`);
  // Tags come back in their order (each pair's opening tag first).
  const tags = (t: string) => [...t.matchAll(/<\/?\w+>/gu)].map((m) => m[0]);
  assert.deepEqual(tags(output), tags(shape.text), output);
  if (shape.icu) assert.deepEqual(icuShape(output), icuShape(shape.text), output);
}

/** The source's English words (of four letters or more, outside placeholders) that the output still has. */
export function untranslatedWords(shape: PlaceholderShape, output: string): string[] {
  let prose = shape.text;
  for (const p of shape.placeholders) prose = prose.split(p).join(' ');
  const words = [...prose.matchAll(/\p{L}{4,}/gu)].map((m) => m[0]);
  return words.filter((w) => new RegExp(`\\b${w}\\b`, 'iu').test(output));
}

/** A translation route: its outputs for SHAPES' texts (in order) and what it checks besides the placeholders. */
export interface ShapeRoute {
  name: string;
  outputs: () => Promise<string[]>;
  check: (shape: PlaceholderShape, output: string) => void;
}

/** Runs `run` once, on the first call (each route asks for all shapes in one request). */
export function once(run: () => Promise<string[]>): () => Promise<string[]> {
  let outputs: Promise<string[]> | undefined;
  return () => (outputs ??= run());
}

/** A test per route and shape: the placeholders kept, then the route's own check. */
export function describeRoutes(routes: ShapeRoute[]): void {
  for (const r of routes) {
    describe(`placeholders through ${r.name}`, () => {
      SHAPES.forEach((shape, i) => {
        it(`${shape.name}: kept verbatim, the words around it translated`, async () => {
          const output = (await r.outputs())[i]!;
          assertPlaceholdersKept(shape, output);
          r.check(shape, output);
        });
      });
    });
  }
}
