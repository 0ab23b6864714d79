// Reads an ICU message as its consumers would (formatjs's parser): a message that no longer parses fails the test.
import { isLiteralElement, isPluralElement, isSelectElement, parse, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

/** An ICU message's structure (argument names, types, selectors, `#`), its literal texts left out. */
export function icuShape(message: string): unknown {
  const strip = (nodes: MessageFormatElement[]): unknown[] =>
    nodes.map((n) => {
      if (isLiteralElement(n)) return 'text';
      if (isPluralElement(n) || isSelectElement(n)) return { arg: n.value, type: n.type, options: Object.fromEntries(Object.entries(n.options).map(([k, o]) => [k, strip(o.value)])) };
      return { ...n, location: undefined };
    });
  return strip(parse(message, { ignoreTag: true }));
}

