// /v3/style_rules: style rule lists, their configured rules and custom instructions.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { CustomInstruction, StyleRule as StyleRuleView } from '../../customization/style-rules/style-rule-service.js';
import { validateConfiguredRules } from '../../customization/style-rules/style-rule-service.js';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { queryInt, queryValue } from '../query.js';
import { errorResponses, handlerChecked, pageQuery } from '../schemas/common.js';
import { bodyObject } from './glossary-body.js';
import { parseCreateBody, parseInstruction, parseName } from './style-rule-body.js';

const Instruction = Type.Object({ id: Type.String(), label: Type.String(), prompt: Type.String(), source_language: Type.Optional(Type.String()) });
const Rules = Type.Record(Type.String(), Type.Record(Type.String(), Type.String()));
const StyleRule = Type.Object({
  style_id: Type.String(),
  name: Type.String(),
  creation_time: Type.String(),
  updated_time: Type.String(),
  language: Type.String(),
  version: Type.Integer(),
  configured_rules: Type.Optional(Rules),
  custom_instructions: Type.Optional(Type.Array(Instruction)),
});
// Bodies and query are checked by style-rule-body.ts and src/http/query.ts (the reference's messages).
const ConfiguredRules = Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
  description: 'Options chosen per category and rule, e.g. `{"punctuation": {"quotation_mark": "use_guillemets"}}`.',
});
const instruction = {
  label: Type.String({ maxLength: 100, description: 'Short name of the instruction.' }),
  prompt: Type.String({ maxLength: 300, description: 'The instruction itself.' }),
  source_language: Type.Optional(Type.String({ description: 'Apply only to texts in this language.' })),
};
const InstructionBody = handlerChecked(instruction);
const CreateBody = handlerChecked({
  name: Type.String({ maxLength: 1024, description: 'Name of the style rule list.' }),
  language: Type.String({ description: 'Target language the rules apply to.' }),
  configured_rules: Type.Optional(ConfiguredRules),
  custom_instructions: Type.Optional(Type.Array(Type.Object(instruction))),
});
const RenameBody = handlerChecked({ name: Type.String({ maxLength: 1024, description: 'New name.' }) });
const RulesBody = { ...ConfiguredRules, 'x-validated-by': 'handler', description: 'Replaces the configured rules. ' + ConfiguredRules.description };
const ListQuery = handlerChecked({ ...pageQuery(25, 10), detailed: Type.Optional(Type.String({ description: '`true` to include rules and instructions.' })) });
const StyleParams = Type.Object({ style_id: Type.String() });
const InstructionParams = Type.Object({ style_id: Type.String(), instruction_id: Type.String() });

const instructionWire = (c: CustomInstruction) => ({
  id: c.id, label: c.label, prompt: c.prompt, ...(c.sourceLanguage !== undefined ? { source_language: c.sourceLanguage } : {}),
});
/** `detailed`: with the configured rules and custom instructions (a listing leaves them out unless asked). */
const styleRuleWire = (v: StyleRuleView, detailed = true) => ({
  style_id: v.id,
  name: v.name,
  creation_time: v.createdAt.toISOString(),
  updated_time: v.updatedAt.toISOString(),
  language: v.language,
  version: v.version,
  ...(detailed ? { configured_rules: v.configuredRules, custom_instructions: v.customInstructions.map(instructionWire) } : {}),
});

export async function styleRuleRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const config = { scope: 'style_rules' as const };
  const s = services.styleRules;
  type P = { Params: { style_id: string } };
  type PI = { Params: { style_id: string; instruction_id: string } };
  app.get<{ Querystring: Record<string, string> }>(
    '/v3/style_rules',
    { config, schema: { querystring: ListQuery, response: { 200: Type.Object({ style_rules: Type.Array(StyleRule) }), ...errorResponses } } },
    async (request) => {
      const page = queryInt(request.query, 'page', 0, 0, 1_000_000);
      const pageSize = queryInt(request.query, 'page_size', 10, 1, 25);
      const detailed = ['true', '1'].includes(queryValue(request.query, 'detailed') ?? '');
      const list = await s.list(authOf(request).account.id, page, pageSize);
      return { style_rules: list.map((v) => styleRuleWire(v, detailed)) };
    },
  );
  app.post('/v3/style_rules', { config, schema: { body: CreateBody, response: { 201: StyleRule, ...errorResponses } } }, async (request, reply) =>
    reply.status(201).send(styleRuleWire(await s.create(authOf(request).account.id, parseCreateBody(bodyObject(request.body))))),
  );
  app.get<P>('/v3/style_rules/:style_id', { config, schema: { params: StyleParams, response: { 200: StyleRule, ...errorResponses } } }, async (request) =>
    styleRuleWire(await s.get(authOf(request).account.id, request.params.style_id)),
  );
  app.patch<P>('/v3/style_rules/:style_id', { config, schema: { params: StyleParams, body: RenameBody, response: { 200: StyleRule, ...errorResponses } } }, async (request) =>
    styleRuleWire(await s.rename(authOf(request).account.id, request.params.style_id, parseName(bodyObject(request.body).name))),
  );
  app.delete<P>('/v3/style_rules/:style_id', { config, schema: { params: StyleParams, response: { 204: Type.Null(), ...errorResponses } } }, async (request, reply) => {
    await s.delete(authOf(request).account.id, request.params.style_id);
    return reply.status(204).send();
  });
  app.put<P>(
    '/v3/style_rules/:style_id/configured_rules',
    { config, schema: { params: StyleParams, body: RulesBody, response: { 200: StyleRule, ...errorResponses } } },
    async (request) => styleRuleWire(await s.replaceRules(authOf(request).account.id, request.params.style_id, validateConfiguredRules(request.body))),
  );
  app.post<P>(
    '/v3/style_rules/:style_id/custom_instructions',
    { config, schema: { params: StyleParams, body: InstructionBody, response: { 201: Instruction, ...errorResponses } } },
    async (request, reply) => reply.status(201).send(instructionWire(await s.addInstruction(authOf(request).account.id, request.params.style_id, parseInstruction(request.body)))),
  );
  app.get<PI>(
    '/v3/style_rules/:style_id/custom_instructions/:instruction_id',
    { config, schema: { params: InstructionParams, response: { 200: Instruction, ...errorResponses } } },
    async (request) => instructionWire(await s.getInstruction(authOf(request).account.id, request.params.style_id, request.params.instruction_id)),
  );
  app.put<PI>(
    '/v3/style_rules/:style_id/custom_instructions/:instruction_id',
    { config, schema: { params: InstructionParams, body: InstructionBody, response: { 200: Instruction, ...errorResponses } } },
    async (request) =>
      instructionWire(await s.updateInstruction(authOf(request).account.id, request.params.style_id, request.params.instruction_id, parseInstruction(request.body))),
  );
  app.delete<PI>(
    '/v3/style_rules/:style_id/custom_instructions/:instruction_id',
    { config, schema: { params: InstructionParams, response: { 204: Type.Null(), ...errorResponses } } },
    async (request, reply) => {
      await s.deleteInstruction(authOf(request).account.id, request.params.style_id, request.params.instruction_id);
      return reply.status(204).send();
    },
  );
}
