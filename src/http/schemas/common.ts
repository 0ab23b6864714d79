// Schemas shared by every route: the error body and the status codes that carry it.
import { Type } from '@sinclair/typebox';

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

/** Bodies arrive as JSON or form; both decode to an object whose fields are validated by the service parser. */
export const AnyObjectBody = Type.Object({}, { additionalProperties: true });
