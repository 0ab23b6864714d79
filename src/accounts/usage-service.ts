// Billing: checks quotas and writes the usage ledger in one transaction; answers the /v2/usage figures.
import { ServiceError } from '../lib/errors.js';
import type { ChargeLimits, ChargeOutcome, UsageCharge, UsageRepository } from '../store/repositories/usage-repository.js';
import type { UsageProduct } from '../store/schema.js';
import type { AccountsService, AuthContext } from './accounts-service.js';

export const QUOTA_EXCEEDED_MESSAGE = 'Quota for this billing period has been exceeded.';

export interface UsageSummary {
  periodStart: number;
  periodEnd: number;
  accountCharacters: number;
  accountCharacterLimit: number | null;
  keyCharacters: number;
  keyCharacterLimit: number | null;
  accountSpeechToTextMs: number;
  keySpeechToTextMs: number;
  keySpeechToTextMsLimit: number | null;
  /** Per product, account and key units in the period. */
  products: { product: UsageProduct; account: number; key: number }[];
}

/** Writes one charge (the decision and the ledger, in one transaction), perhaps with the caller's own writes. */
export type ChargeWriter = (charge: UsageCharge, limits: ChargeLimits) => Promise<ChargeOutcome>;

export class UsageService {
  constructor(
    private readonly ledger: UsageRepository,
    private readonly accounts: AccountsService,
  ) {}

  /** Fails fast with 456 when the account or key has no room left for `units` characters (no write). */
  async assertCharactersAvailable(ctx: AuthContext, units: number): Promise<void> {
    // No limit on either: nothing to read (charge() still decides, transactionally).
    if (ctx.account.characterLimit === null && ctx.key.characterLimit === null) return;
    const { start } = this.accounts.billingPeriod(ctx.account);
    const [account, key] = await Promise.all([
      this.ledger.usageTotals(ctx.account.id, start),
      this.ledger.usageTotals(ctx.key.id, start),
    ]);
    if (
      (ctx.account.characterLimit !== null && account.characters + units > ctx.account.characterLimit) ||
      // A key whose limit is reached (0 included) is refused even for a request that bills nothing.
      (ctx.key.characterLimit !== null && (key.characters + units > ctx.key.characterLimit || key.characters >= ctx.key.characterLimit))
    ) {
      throw new ServiceError('quota_exceeded', QUOTA_EXCEEDED_MESSAGE);
    }
  }

  /** Fails with 456 when the key's speech-to-text limit for the period is reached (before a voice session starts). */
  async assertSpeechToTextAvailable(ctx: AuthContext): Promise<void> {
    if (ctx.key.speechToTextMsLimit === null) return;
    const { start } = this.accounts.billingPeriod(ctx.account);
    const key = await this.ledger.usageTotals(ctx.key.id, start);
    if (key.speechToTextMs >= ctx.key.speechToTextMsLimit) throw new ServiceError('quota_exceeded', QUOTA_EXCEEDED_MESSAGE);
  }

  /**
   * Records billed work; throws 456 (and records nothing) when it no longer fits the limits. `write` replaces the
   * ledger's own write, e.g. a document's charge together with its charged mark (DocumentRepository.chargeOnce).
   */
  async charge(
    ctx: AuthContext,
    product: UsageProduct,
    units: number,
    reportingTag: string | null,
    write: ChargeWriter = (charge, limits) => this.ledger.charge(charge, limits),
  ): Promise<void> {
    if (units <= 0) return;
    const now = this.accounts.now();
    const { start } = this.accounts.billingPeriod(ctx.account, now);
    const outcome = await write(
      { accountId: ctx.account.id, keyId: ctx.key.id, product, units, reportingTag, at: now, periodStart: start },
      {
        accountCharacterLimit: ctx.account.characterLimit,
        keyCharacterLimit: ctx.key.characterLimit,
        keySpeechToTextMsLimit: ctx.key.speechToTextMsLimit,
      },
    );
    if (!outcome.ok) throw new ServiceError('quota_exceeded', QUOTA_EXCEEDED_MESSAGE);
  }

  async summary(ctx: AuthContext): Promise<UsageSummary> {
    const { start, end } = this.accounts.billingPeriod(ctx.account);
    const [account, key, accountByProduct, keyByProduct] = await Promise.all([
      this.ledger.usageTotals(ctx.account.id, start),
      this.ledger.usageTotals(ctx.key.id, start),
      this.ledger.usageByProduct(ctx.account.id, start),
      this.ledger.usageByProduct(ctx.account.id, start, ctx.key.id),
    ]);
    const products: UsageSummary['products'] = (
      ['text_translation', 'document_translation', 'text_improvement', 'speech_to_text'] as const
    ).map((product) => ({ product, account: accountByProduct.get(product) ?? 0, key: keyByProduct.get(product) ?? 0 }));
    return {
      periodStart: start,
      periodEnd: end,
      accountCharacters: account.characters,
      accountCharacterLimit: ctx.account.characterLimit,
      keyCharacters: key.characters,
      keyCharacterLimit: ctx.key.characterLimit,
      accountSpeechToTextMs: account.speechToTextMs,
      keySpeechToTextMs: key.speechToTextMs,
      keySpeechToTextMsLimit: ctx.key.speechToTextMsLimit,
      products,
    };
  }
}
