// Query parameters read by hand (routes without a querystring schema): one value per name, or a clear 400. The
// query parser turns a repeated name (`?a=1&a=2`) into an array, which no such parameter accepts.
import { invalid } from '../lib/errors.js';

type Query = Readonly<Record<string, unknown>> | undefined;

/** The parameter's single value; undefined when absent; 400 when repeated. */
export function queryValue(query: Query, name: string): string | undefined {
  if (!query || !Object.hasOwn(query, name)) return undefined;
  const value = query[name];
  if (typeof value === 'string') return value;
  if (value === undefined) return undefined;
  throw invalid(`Value for '${name}' not supported: the parameter may be given only once.`);
}

/** An integer parameter in [min, max]; `def` when absent or empty. */
export function queryInt(query: Query, name: string, def: number, min: number, max: number): number {
  const value = queryValue(query, name);
  if (value === undefined || value === '') return def;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw invalid(`Value for '${name}' not supported.`);
  return n;
}
