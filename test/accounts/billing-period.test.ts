// Billing periods run monthly from the creation day, clamped to short months.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { billingPeriodAt } from '../../src/accounts/billing-period.js';

it('starts on the creation day of the current month', () => {
  const created = Date.UTC(2026, 0, 15, 10);
  const p = billingPeriodAt(created, Date.UTC(2026, 2, 20));
  assert.equal(new Date(p.start).toISOString(), '2026-03-15T10:00:00.000Z');
  assert.equal(new Date(p.end).toISOString(), '2026-04-15T10:00:00.000Z');
});

it('uses the previous month before the anniversary', () => {
  const p = billingPeriodAt(Date.UTC(2026, 0, 15, 10), Date.UTC(2026, 2, 15, 9));
  assert.equal(new Date(p.start).toISOString(), '2026-02-15T10:00:00.000Z');
});

it('clamps the 31st to the end of shorter months', () => {
  const p = billingPeriodAt(Date.UTC(2026, 0, 31), Date.UTC(2026, 1, 28, 12));
  assert.equal(new Date(p.start).toISOString(), '2026-02-28T00:00:00.000Z');
  assert.equal(new Date(p.end).toISOString(), '2026-03-31T00:00:00.000Z');
});
