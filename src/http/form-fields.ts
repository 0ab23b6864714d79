// Form-encoded bodies: every field is kept (repeated keys become arrays, as the reference expects). node:querystring
// silently drops every field after its 1,000th (maxKeys), so a body padded with junk lost the options at its end;
// here a body with more fields than MAX_FORM_FIELDS is a 400 naming the limit, and none is ever dropped.
import { parse as parseQueryString, type ParsedUrlQuery } from 'node:querystring';
import { invalid } from '../lib/errors.js';

/** Fields one form-encoded body may have (a translate request with 50 texts and every option has under 70). */
export const MAX_FORM_FIELDS = 1000;

/** The fields of a form-encoded body; 400 past MAX_FORM_FIELDS. Linear in the body. */
export function parseFormFields(body: string): ParsedUrlQuery {
  let fields = 0;
  for (let start = 0; start <= body.length; ) {
    const end = body.indexOf('&', start);
    const stop = end < 0 ? body.length : end;
    if (stop > start && ++fields > MAX_FORM_FIELDS) throw invalid(`Too many form fields: at most ${MAX_FORM_FIELDS} are accepted.`);
    start = stop + 1;
  }
  return parseQueryString(body, '&', '=', { maxKeys: 0 });
}
