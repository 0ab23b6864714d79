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
/** A custom instruction as a request gives it. */
export interface InstructionInput {
  label: string;
  prompt: string;
  /** Only texts in this language (lower case) get it. */
  sourceLanguage?: string;
}
export interface CustomInstruction extends InstructionInput {
  id: string;
}
export interface StyleRuleInput {
  name: string;
  /** One of STYLE_RULE_LANGUAGES. */
  language: string;
  configuredRules: ConfiguredRules;
  customInstructions: InstructionInput[];
}
export interface StyleRule {
  id: string;
  name: string;
  createdAt: Date;
  updatedAt: Date;
  language: string;
  version: number;
  configuredRules: ConfiguredRules;
  customInstructions: CustomInstruction[];
}
/** A custom instruction as the custom_instructions column holds it (JSON). */
interface StoredInstruction {
  id: string;
  label: string;
  prompt: string;
  source_language?: string;
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

const stored = (c: CustomInstruction): StoredInstruction => ({
  id: c.id, label: c.label, prompt: c.prompt, ...(c.sourceLanguage !== undefined ? { source_language: c.sourceLanguage } : {}),
});
const instructionsJson = (list: CustomInstruction[]) => JSON.stringify(list.map(stored));

function view(row: StyleRuleRow): StyleRule {
  return {
    id: row.id,
    name: row.name,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    language: row.language,
    version: Number(row.version),
    configuredRules: JSON.parse(row.configured_rules) as ConfiguredRules,
    customInstructions: (JSON.parse(row.custom_instructions) as StoredInstruction[]).map((c) => ({
      id: c.id, label: c.label, prompt: c.prompt, ...(c.source_language !== undefined ? { sourceLanguage: c.source_language } : {}),
    })),
  };
}

export class StyleRuleService {
  constructor(
    private readonly repo: StyleRuleRepository,
    private readonly now: () => number = Date.now,
  ) {}

  async create(accountId: string, input: StyleRuleInput): Promise<StyleRule> {
    if (!STYLE_RULE_LANGUAGES.includes(input.language)) throw unsupportedValue('language');
    if (input.customInstructions.length > MAX_INSTRUCTIONS) throw invalid(`At most ${MAX_INSTRUCTIONS} custom instructions are allowed.`);
    const at = this.now();
    const row: StyleRuleRow = {
      id: newUuid(), account_id: accountId, name: input.name, language: input.language,
      configured_rules: JSON.stringify(input.configuredRules),
      custom_instructions: instructionsJson(input.customInstructions.map((c) => ({ ...c, id: newUuid() }))),
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

  async get(accountId: string, id: string): Promise<StyleRule> {
    return view(await this.row(accountId, id));
  }

  async list(accountId: string, page: number, pageSize: number): Promise<StyleRule[]> {
    return (await this.repo.page(accountId, page, pageSize)).map(view);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await this.repo.delete(accountId, (await this.row(accountId, id)).id))) throw notFound('Style rule not found');
  }

  /** Every change bumps the version; a concurrent change makes the loser retry on fresh data. */
  private async change(accountId: string, id: string, fn: (v: StyleRule) => Partial<StyleRuleRow>): Promise<StyleRule> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.row(accountId, id);
      const changes = { ...fn(view(row)), version: Number(row.version) + 1, updated_at: this.now() };
      if (await this.repo.update(row.id, Number(row.version), changes)) return view({ ...row, ...changes });
    }
    throw new ServiceError('conflict', 'The style rule was changed concurrently; please retry.');
  }

  rename(accountId: string, id: string, name: string): Promise<StyleRule> {
    return this.change(accountId, id, () => ({ name }));
  }

  /** `rules`: checked against the catalogue (validateConfiguredRules). */
  replaceRules(accountId: string, id: string, rules: ConfiguredRules): Promise<StyleRule> {
    return this.change(accountId, id, () => ({ configured_rules: JSON.stringify(rules) }));
  }

  async addInstruction(accountId: string, id: string, input: InstructionInput): Promise<CustomInstruction> {
    const instruction = { ...input, id: newUuid() };
    await this.change(accountId, id, (v) => {
      if (v.customInstructions.length >= MAX_INSTRUCTIONS) throw invalid(`At most ${MAX_INSTRUCTIONS} custom instructions are allowed.`);
      return { custom_instructions: instructionsJson([...v.customInstructions, instruction]) };
    });
    return instruction;
  }

  async getInstruction(accountId: string, id: string, instructionId: string): Promise<CustomInstruction> {
    const found = (await this.get(accountId, id)).customInstructions.find((c) => c.id === instructionId);
    if (!found) throw notFound('Custom instruction not found');
    return found;
  }

  async updateInstruction(accountId: string, id: string, instructionId: string, input: InstructionInput): Promise<CustomInstruction> {
    const instruction = { ...input, id: instructionId };
    await this.change(accountId, id, (v) => {
      if (!v.customInstructions.some((c) => c.id === instructionId)) throw notFound('Custom instruction not found');
      return { custom_instructions: instructionsJson(v.customInstructions.map((c) => (c.id === instructionId ? instruction : c))) };
    });
    return instruction;
  }

  async deleteInstruction(accountId: string, id: string, instructionId: string): Promise<void> {
    await this.change(accountId, id, (v) => {
      if (!v.customInstructions.some((c) => c.id === instructionId)) throw notFound('Custom instruction not found');
      return { custom_instructions: instructionsJson(v.customInstructions.filter((c) => c.id !== instructionId)) };
    });
  }

  /**
   * For translation: the style rule list, checked against the target; rules that cannot be applied deterministically
   * (and custom instructions) need an engine with a language model — with none, the request is refused, never ignored.
   */
  async resolve(accountId: string, styleId: string, targetLang: string, engine: { styleRules?: boolean; customInstructions?: boolean } = {}): Promise<StyleRule> {
    if (!UUID.test(styleId)) throw unsupportedValue('style_id');
    const row = await this.repo.get(accountId, styleId.toLowerCase());
    if (!row) throw notFound('Style rule not found');
    const v = view(row);
    if (v.language !== targetLang.toLowerCase().split('-')[0]) throw invalid('Style rule language does not match the translate request target language');
    if (!engine.styleRules) {
      const open = Object.entries(v.configuredRules).flatMap(([c, rules]) => Object.entries(rules).filter(([r, o]) => !isDeterministic(c, r, o)).map(([r]) => `${c}.${r}`));
      if (open.length > 0) {
        throw new ServiceError('feature_not_available', `The style rules ${open.join(', ')} need a language-model engine, which the engine for this language pair is not.`);
      }
    }
    if (!engine.customInstructions) {
      if (v.customInstructions.length > 0) {
        throw new ServiceError('feature_not_available', 'Custom instructions need a language-model engine, which the engine for this language pair is not.');
      }
    }
    return v;
  }
}
