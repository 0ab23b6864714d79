// Lookups by a name the client chose: only the record's own entries, never what Object.prototype lends every object
// (`toString`, `constructor`, `__proto__`), so an unknown name stays unknown.

export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
