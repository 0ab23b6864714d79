// Billing periods are monthly from the account's creation day (clamped to shorter months), in UTC.

function addMonthsClamped(anchor: Date, months: number): number {
  const y = anchor.getUTCFullYear();
  const m = anchor.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const day = Math.min(anchor.getUTCDate(), lastDay);
  return Date.UTC(y, m, day, anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds());
}

export interface BillingPeriod {
  start: number;
  end: number;
}

export function billingPeriodAt(createdAt: number, now: number): BillingPeriod {
  const anchor = new Date(createdAt);
  if (now < createdAt) return { start: createdAt, end: addMonthsClamped(anchor, 1) };
  const n = new Date(now);
  let months = (n.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + (n.getUTCMonth() - anchor.getUTCMonth());
  if (addMonthsClamped(anchor, months) > now) months -= 1;
  return { start: addMonthsClamped(anchor, months), end: addMonthsClamped(anchor, months + 1) };
}
