// Endpoint groups a developer key can be limited to; the auth plugin checks a route's `config.scope` against a key's list.

/** Every authenticated route names its group in `config.scope`; admin and voice routes are never scoped. */
export const SCOPES = [
  'translate', // /v2/translate
  'document', // /v2/document*
  'detect', // /v3/detect/language
  'glossary', // /v2/glossaries*, /v3/glossaries*, glossary language pairs
  'style_rules', // /v3/style_rules*
  'translation_memory', // /v3/translation_memories*
  'write', // /v2/write/*
  'usage', // /v2/usage
  'languages', // /v2/languages, /v3/languages*
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(name: string): name is Scope {
  return (SCOPES as readonly string[]).includes(name);
}

/** Whether a key with these scopes (null = unrestricted) may call a route of this group (undefined = not scopable). */
export function scopeAllows(keyScopes: readonly string[] | null, routeScope: string | undefined): boolean {
  return routeScope === undefined || keyScopes === null || keyScopes.includes(routeScope);
}
