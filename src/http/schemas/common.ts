// Schemas shared by every route: the error body and the status codes that carry it.
import { Type, type TProperties, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object({
  message: Type.String(),
  code: Type.Optional(Type.String()),
  detail: Type.Optional(Type.String()),
});

/** What each error status means, for the API documentation (every authenticated route can give these). */
export const API_ERROR_DESCRIPTIONS = {
  400: 'Bad request: a parameter is missing or invalid; the message names it.',
  403: 'Authorization failed: the key is missing, unknown, deactivated, or not allowed this endpoint (scopes).',
  404: 'The resource (glossary, document, key, …) does not exist for this account.',
  413: 'The request is too large (body, text or document size).',
  414: 'The request URL is too long: send the parameters in the body.',
  415: 'The content type or document format is not supported.',
  429: 'Too many requests: wait and retry (Retry-After says how long).',
  456: 'Quota exceeded: the character limit of the billing period (account or key) is reached.',
  500: 'Internal error.',
  503: 'Unavailable: the server is starting, shutting down, or the engine for this language pair is not available.',
  504: 'The engine did not answer in time (TOLK_ENGINE_TIMEOUT_MS).',
  529: 'Too many requests overall: the server is at capacity; retry later.',
} as const;

/** Error responses every authenticated route can give, each with its description. */
export const errorResponses = Object.fromEntries(
  Object.entries(API_ERROR_DESCRIPTIONS).map(([status, description]) => [status, { ...ErrorBody, description }]),
) as Record<keyof typeof API_ERROR_DESCRIPTIONS, typeof ErrorBody>;

/**
 * Parameters the route's own parser checks, for its exact error messages: the schema documents them, and
 * `x-validated-by: handler` tells the validator (schemas/validator.ts) to let the parser judge.
 */
export function handlerChecked(properties: TProperties, description?: string) {
  return Type.Object(properties, { additionalProperties: true, 'x-validated-by': 'handler', ...(description ? { description } : {}) });
}

/** A form field may repeat (`text=a&text=b`); JSON gives an array. */
export const OneOrMany = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Array(t)], { description });

/** Bodies the official clients send: JSON (deepl-node) or form-encoded (deepl-python). */
export const JSON_OR_FORM = ['application/json', 'application/x-www-form-urlencoded'];

/** A boolean flag as JSON gives it or as a form field spells it. */
export const Flag = (description: string) => Type.Union([Type.Boolean(), Type.Union([Type.Literal('0'), Type.Literal('1'), Type.Literal('true'), Type.Literal('false')])], { description });

/** `page` and `page_size` of a listing, read by src/http/query.ts (its messages name the parameter). */
export const pageQuery = (maxPageSize: number, defaultPageSize: number) => ({
  page: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Page number, from 0.' })),
  page_size: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: `Items per page, 1–${maxPageSize} (default ${defaultPageSize}).` })),
});

/** A file download: the response body is the file's bytes. */
export const binaryResponse = (description: string, contentType = 'application/octet-stream') => ({
  description,
  content: { [contentType]: { schema: { type: 'string', format: 'binary' } } },
});
