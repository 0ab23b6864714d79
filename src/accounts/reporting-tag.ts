// Reporting tags attribute usage to a customer-chosen label; normalised and validated once, here.
import { invalid } from '../lib/errors.js';

export const MAX_REPORTING_TAG_LENGTH = 100;

/** Trimmed and lower-cased; printable ASCII without whitespace; at most 100 characters. */
export function parseReportingTag(raw: string | string[] | undefined): string | null {
  if (raw === undefined) return null;
  if (Array.isArray(raw)) throw invalid('Only one reporting tag may be sent per request.');
  const tag = raw.trim().toLowerCase();
  if (tag === '') return null;
  if (!/^[\x21-\x7e]+$/.test(tag)) {
    throw invalid('Invalid reporting tag: only printable ASCII characters without whitespace are allowed.');
  }
  if (tag.length > MAX_REPORTING_TAG_LENGTH) {
    throw invalid(`Invalid reporting tag: at most ${MAX_REPORTING_TAG_LENGTH} characters are allowed.`);
  }
  return tag;
}
