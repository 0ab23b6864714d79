// Style rule bodies → the style rule service's typed inputs, with the reference's error messages.
import {
  MAX_INSTRUCTIONS, STYLE_RULE_LANGUAGES, validateConfiguredRules, type InstructionInput, type StyleRuleInput,
} from '../../customization/style-rules/style-rule-service.js';
import { invalid, unsupportedValue } from '../../lib/errors.js';

function checkString(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`Parameter '${name}' not specified`);
  if ([...value].length > max) throw invalid(`Parameter '${name}' must be at most ${max} characters`);
  return value;
}

export const parseName = (value: unknown) => checkString(value, 'name', 1024);

export function parseInstruction(value: unknown): InstructionInput {
  if (typeof value !== 'object' || value === null) throw invalid("Parameter 'custom_instructions' not supported.");
  const v = value as Record<string, unknown>;
  const out: InstructionInput = { label: checkString(v.label, 'label', 100), prompt: checkString(v.prompt, 'prompt', 300) };
  if (v.source_language !== undefined && v.source_language !== null) {
    if (typeof v.source_language !== 'string' || !/^[a-z]{2}(-[a-z0-9]+)?$/i.test(v.source_language)) throw unsupportedValue('source_language');
    out.sourceLanguage = v.source_language.toLowerCase();
  }
  return out;
}

export function parseCreateBody(body: Record<string, unknown>): StyleRuleInput {
  const name = parseName(body.name);
  if (typeof body.language !== 'string') throw invalid("Parameter 'language' not specified");
  const language = body.language.toLowerCase();
  if (!STYLE_RULE_LANGUAGES.includes(language)) throw unsupportedValue('language');
  const configuredRules = validateConfiguredRules(body.configured_rules);
  const raw = body.custom_instructions ?? [];
  if (!Array.isArray(raw)) throw unsupportedValue('custom_instructions');
  if (raw.length > MAX_INSTRUCTIONS) throw invalid(`At most ${MAX_INSTRUCTIONS} custom instructions are allowed.`);
  return { name, language, configuredRules, customInstructions: raw.map(parseInstruction) };
}
