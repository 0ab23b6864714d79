// GET|POST /v2/usage: the account's and the calling key's usage in the current billing period.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Services } from '../../services.js';
import { authOf } from '../plugins/auth.js';
import { errorResponses } from '../schemas/common.js';

/** What the reference reports as the limit of an unlimited account or key. */
export const UNLIMITED = 1_000_000_000_000;

const Product = Type.Object({
  product_type: Type.String(),
  billing_unit: Type.String(),
  api_key_unit_count: Type.Integer(),
  account_unit_count: Type.Integer(),
  api_key_character_count: Type.Integer(),
  character_count: Type.Integer(),
});

const UsageResponse = Type.Object({
  character_count: Type.Integer(),
  character_limit: Type.Integer(),
  products: Type.Optional(Type.Array(Product)),
  api_key_character_count: Type.Optional(Type.Integer()),
  api_key_character_limit: Type.Optional(Type.Integer()),
  speech_to_text_milliseconds_count: Type.Optional(Type.Integer()),
  speech_to_text_milliseconds_limit: Type.Optional(Type.Integer()),
  speech_to_text_minutes_count: Type.Optional(Type.Integer()),
  speech_to_text_minutes_limit: Type.Optional(Type.Integer()),
  start_time: Type.Optional(Type.String()),
  end_time: Type.Optional(Type.String()),
});

const msToMinutes = (ms: number) => Math.ceil(ms / 60_000);

export async function usageRoutes(app: FastifyInstance, { services }: { services: Services }): Promise<void> {
  const handler = async (request: Parameters<typeof authOf>[0]) => {
    const ctx = authOf(request);
    const s = await services.usage.summary(ctx);
    const base = { character_count: s.accountCharacters, character_limit: s.accountCharacterLimit ?? UNLIMITED };
    if (ctx.account.plan === 'free') return base;
    const unit = (product: string) => (product === 'speech_to_text' ? 'minutes' : 'characters');
    const productType: Record<string, string> = {
      text_translation: 'translate',
      document_translation: 'translate',
      text_improvement: 'write',
      speech_to_text: 'speechToText',
    };
    // The reference reports translate (text + documents) as one product.
    const merged = new Map<string, { account: number; key: number; product: string }>();
    for (const p of s.products) {
      const type = productType[p.product]!;
      const m = merged.get(type) ?? { account: 0, key: 0, product: p.product };
      m.account += p.account;
      m.key += p.key;
      merged.set(type, m);
    }
    return {
      ...base,
      products: [...merged].map(([type, m]) => {
        const minutes = unit(m.product) === 'minutes';
        const account = minutes ? msToMinutes(m.account) : m.account;
        const key = minutes ? msToMinutes(m.key) : m.key;
        return {
          product_type: type,
          billing_unit: unit(m.product),
          api_key_unit_count: key,
          account_unit_count: account,
          api_key_character_count: minutes ? 0 : key,
          character_count: minutes ? 0 : account,
        };
      }),
      api_key_character_count: s.keyCharacters,
      api_key_character_limit: s.keyCharacterLimit ?? UNLIMITED,
      speech_to_text_milliseconds_count: 0,
      speech_to_text_milliseconds_limit: 0,
      speech_to_text_minutes_count: msToMinutes(s.accountSpeechToTextMs),
      speech_to_text_minutes_limit: s.keySpeechToTextMsLimit === null ? UNLIMITED : msToMinutes(s.keySpeechToTextMsLimit),
      start_time: new Date(s.periodStart).toISOString(),
      end_time: new Date(s.periodEnd).toISOString(),
    };
  };
  const schema = { response: { 200: UsageResponse, ...errorResponses } };
  app.get('/v2/usage', { schema, config: { scope: 'usage' } }, handler);
  app.post('/v2/usage', { schema, config: { scope: 'usage' } }, handler);
}
