// Schemas shared by every route: the error body and the status codes that carry it.
import { Type, type TProperties, type TSchema } from '@sinclair/typebox';

export const ErrorBody = Type.Object({
  message: Type.String(),
  code: Type.Optional(Type.String()),
  detail: Type.Optional(Type.String()),
});

/** Error responses every authenticated route can give. */
export const errorResponses = {
  400: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  413: ErrorBody,
  414: ErrorBody,
  415: ErrorBody,
  429: ErrorBody,
  456: ErrorBody,
  500: ErrorBody,
  503: ErrorBody,
  504: ErrorBody,
  529: ErrorBody,
};

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
