// Style rule lists: CRUD with catalogue validation and version bumps, and what translation needs from them.
import { own } from '../../lib/own.js';
import { ServiceError, invalid, notFound, unsupportedValue } from '../../lib/errors.js';
import { newUuid } from '../../lib/ids.js';
import type { StyleRuleRepository, StyleRuleRow } from '../../store/repositories/style-rule-repository.js';
import { RULE_CATALOGUE } from './rule-catalogue.js';
import { isDeterministic } from './deterministic-rules.js';

export const STYLE_RULE_LANGUAGES = ['de', 'en', 'es', 'fr', 'it', 'ja', 'ko', 'zh'];
export const MAX_INSTRUCTIONS = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ConfiguredRules = Record<string, Record<string, string>>;
export interface CustomInstruction {
  id: string;
  label: string;
  prompt: string;
  source_language?: string;
}
export interface StyleRuleView {
  style_id: string;
  name: string;
  creation_time: string;
  updated_time: string;
  language: string;
  version: number;
  configured_rules: ConfiguredRules;
  custom_instructions: CustomInstruction[];
}

/** Validates a ConfiguredRules object against the catalogue generated from the reference OpenAPI schema. */
export function validateConfiguredRules(value: unknown): ConfiguredRules {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw unsupportedValue('configured_rules');
  const out: ConfiguredRules = {};
  for (const [category, rules] of Object.entries(value as Record<string, unknown>)) {
    const known = own(RULE_CATALOGUE, category);
    if (!known) throw invalid(`Value for 'configured_rules' not supported. Unknown category '${category}'.`);
    if (typeof rules !== 'object' || rules === null || Array.isArray(rules)) throw invalid(`Value for 'configured_rules.${category}' not supported.`);
    out[category] = {};
    for (const [rule, option] of Object.entries(rules as Record<string, unknown>)) {
      const options = own(known, rule);
      if (!options) throw invalid(`Value for 'configured_rules' not supported. Unknown rule '${category}.${rule}'.`);
      if (typeof option !== 'string' || !options.includes(option)) throw invalid(`Value for 'configured_rules.${category}.${rule}' not supported.`);
      out[category][rule] = option;
    }
  }
  return out;
}

function checkString(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid(`Parameter '${name}' not specified`);
  if ([...value].length > max) throw invalid(`Parameter '${name}' must be at most ${max} characters`);
  return value;
}

export function validateInstruction(value: unknown, id = newUuid()): CustomInstruction {
  if (typeof value !== 'object' || value === null) throw invalid("Parameter 'custom_instructions' not supported.");
  const v = value as Record<string, unknown>;
  const out: CustomInstruction = { id, label: checkString(v.label, 'label', 100), prompt: checkString(v.prompt, 'prompt', 300) };
  if (v.source_language !== undefined && v.source_language !== null) {
    if (typeof v.source_language !== 'string' || !/^[a-z]{2}(-[a-z0-9]+)?$/i.test(v.source_language)) throw unsupportedValue('source_language');
    out.source_language = v.source_language.toLowerCase();
  }
  return out;
}

function view(row: StyleRuleRow): StyleRuleView {
  return {
    style_id: row.id,
    name: row.name,
    creation_time: new Date(Number(row.created_at)).toISOString(),
    updated_time: new Date(Number(row.updated_at)).toISOString(),
    language: row.language,
    version: Number(row.version),
    configured_rules: JSON.parse(row.configured_rules) as ConfiguredRules,
    custom_instructions: JSON.parse(row.custom_instructions) as CustomInstruction[],
  };
}

export class StyleRuleService {
  constructor(
    private readonly repo: StyleRuleRepository,
    private readonly now: () => number = Date.now,
  ) {}

  async create(accountId: string, body: Record<string, unknown>): Promise<StyleRuleView> {
    const name = checkString(body.name, 'name', 1024);
    if (typeof body.language !== 'string') throw invalid("Parameter 'language' not specified");
    const language = body.language.toLowerCase();
    if (!STYLE_RULE_LANGUAGES.includes(language)) throw unsupportedValue('language');
    const rules = validateConfiguredRules(body.configured_rules);
    const raw = body.custom_instructions ?? [];
    if (!Array.isArray(raw)) throw unsupportedValue('custom_instructions');
    if (raw.length > MAX_INSTRUCTIONS) throw invalid(`At most ${MAX_INSTRUCTIONS} custom instructions are allowed.`);
    const at = this.now();
    const row: StyleRuleRow = {
      id: newUuid(), account_id: accountId, name, language,
      configured_rules: JSON.stringify(rules), custom_instructions: JSON.stringify(raw.map((r) => validateInstruction(r))),
      version: 1, created_at: at, updated_at: at,
    };
    await this.repo.insert(row);
    return view(row);
  }

  private async row(accountId: string, id: string): Promise<StyleRuleRow> {
    const row = UUID.test(id) ? await this.repo.get(accountId, id.toLowerCase()) : undefined;
    if (!row) throw notFound('Style rule not found');
    return row;
  }

  async get(accountId: string, id: string): Promise<StyleRuleView> {
    return view(await this.row(accountId, id));
  }

  async list(accountId: string, page: number, pageSize: number): Promise<StyleRuleView[]> {
    return (await this.repo.page(accountId, page, pageSize)).map(view);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.repo.delete(accountId, (await this.row(accountId, id)).id))) throw notFound('Style rule not found');
  }

  /** Every change bumps the version; a concurrent change makes the loser retry on fresh data. */
  private async change(accountId: string, id: string, fn: (v: StyleRuleView) => Partial<StyleRuleRow>): Promise<StyleRuleView> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.row(accountId, id);
      const changes = { ...fn(view(row)), version: Number(row.version) + 1, updated_at: this.now() };
      if (await this.repo.update(row.id, Number(row.version), changes)) return view({ ...row, ...changes });
    }
    throw new ServiceError('conflict', 'The style rule was changed concurrently; please retry.');
  }

  rename(accountId: string, id: string, name: unknown) {
    const n = checkString(name, 'name', 1024);
    return this.change(accountId, id, () => ({ name: n }));
  }

  replaceRules(accountId: string, id: string, rules: unknown) {
    const r = validateConfiguredRules(rules);
    return this.change(accountId, id, () => ({ configured_rules: JSON.stringify(r) }));
  }

  async addInstruction(accountId: string, id: string, body: unknown): Promise<CustomInstruction> {
    const instruction = validateInstruction(body);
    await this.change(accountId, id, (v) => {
      if (v.custom_instructions.length >= MAX_INSTRUCTIONS) throw invalid(`At most ${MAX_INSTRUCTIONS} custom instructions are allowed.`);
      return { custom_instructions: JSON.stringify([...v.custom_instructions, instruction]) };
    });
    return instruction;
  }

  async getInstruction(accountId: string, id: string, instructionId: string): Promise<CustomInstruction> {
    const found = (await this.get(accountId, id)).custom_instructions.find((c) => c.id === instructionId);
    if (!found) throw notFound('Custom instruction not found');
    return found;
  }

  async updateInstruction(accountId: string, id: string, instructionId: string, body: unknown): Promise<CustomInstruction> {
    const instruction = validateInstruction(body, instructionId);
    await this.change(accountId, id, (v) => {
      if (!v.custom_instructions.some((c) => c.id === instructionId)) throw notFound('Custom instruction not found');
      return { custom_instructions: JSON.stringify(v.custom_instructions.map((c) => (c.id === instructionId ? instruction : c))) };
    });
    return instruction;
  }

  async deleteInstruction(accountId: string, id: string, instructionId: string): Promise<void> {
    await this.change(accountId, id, (v) => {
      if (!v.custom_instructions.some((c) => c.id === instructionId)) throw notFound('Custom instruction not found');
      return { custom_instructions: JSON.stringify(v.custom_instructions.filter((c) => c.id !== instructionId)) };
    });
  }

  /**
   * For translation: the style rule list, checked against the target; rules that cannot be applied deterministically
   * (and custom instructions) need an engine with a language model — with none, the request is refused, never ignored.
   */
  async resolve(accountId: string, styleId: string, targetLang: string, engine: { styleRules?: boolean; customInstructions?: boolean } = {}): Promise<StyleRuleView> {
    if (!UUID.test(styleId)) throw unsupportedValue('style_id');
    const row = await this.repo.get(accountId, styleId.toLowerCase());
    if (!row) throw notFound('Style rule not found');
    const v = view(row);
    if (v.language !== targetLang.toLowerCase().split('-')[0]) throw invalid('Style rule language does not match the translate request target language');
    if (!engine.styleRules) {
      const open = Object.entries(v.configured_rules).flatMap(([c, rules]) => Object.entries(rules).filter(([r, o]) => !isDeterministic(c, r, o)).map(([r]) => `${c}.${r}`));
      if (open.length > 0) {
        throw new ServiceError('feature_not_available', `The style rules ${open.join(', ')} need a language-model engine, which the engine for this language pair is not.`);
      }
    }
    if (!engine.customInstructions) {
      if (v.custom_instructions.length > 0) {
        throw new ServiceError('feature_not_available', 'Custom instructions need a language-model engine, which the engine for this language pair is not.');
      }
    }
    return v;
  }
}
