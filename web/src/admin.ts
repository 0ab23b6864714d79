// The admin console (admin key only): the account's quota, developer keys (admin-keys.ts) and usage charts
// (admin-usage.ts). While the console is shown and the browser tab visible, the quota, each key's use and the charts
// are read again every REFRESH_MS and as soon as the tab becomes visible again, so usage from programs elsewhere
// shows up without a reload; a refresh only updates figures in place and never disturbs what the person is doing.
import { call } from './api.js';
import { keyTable } from './admin-keys.js';
import { isoDay, usageCharts } from './admin-usage.js';
import { Notice, h } from './dom.js';

/** What /v2/usage reports as "no limit". */
const UNLIMITED = 1_000_000_000_000;
export const REFRESH_MS = 20_000;

export async function adminView(): Promise<HTMLElement> {
  const notice = new Notice();
  const fail = (err: unknown) => notice.show(err instanceof Error ? err.message : String(err), 'error');
  const quota = h('div', { class: 'card', id: 'quota' });
  const keys = keyTable(notice, fail);
  const usage = usageCharts(fail);

  async function loadQuota(): Promise<void> {
    const u = await call<{ character_count: number; character_limit: number; start_time?: string; end_time?: string }>('GET', '/v2/usage');
    const limited = u.character_limit < UNLIMITED;
    const period = u.start_time && u.end_time ? ` (period ${isoDay(Date.parse(u.start_time))} to ${isoDay(Date.parse(u.end_time))})` : '';
    quota.replaceChildren(h('h3', {}, 'Quota'),
      h('p', {}, `${u.character_count.toLocaleString()} characters used${limited ? ` of ${u.character_limit.toLocaleString()}` : ', no limit'}${period}.`),
      ...(limited ? [h('meter', { min: 0, max: u.character_limit, value: u.character_count, high: u.character_limit * 0.9, 'aria-label': 'Share of the quota used' })] : []));
  }

  await Promise.all([loadQuota(), keys.load(), usage.load()]).catch(fail);
  const view = h('section', { class: 'view', 'aria-labelledby': 'admin-title' },
    h('h2', { id: 'admin-title' }, 'Admin console'), notice.el, quota, keys.el, usage.el);

  // One refresh at a time; stopped for good once the console is left (the next visit builds a new one).
  // A failed refresh (the server unreachable, say) is said, and that message goes once a refresh works again.
  let running = false;
  let failure = '';
  const refresh = () => {
    if (!view.isConnected) return stop();
    if (running || document.visibilityState !== 'visible') return;
    running = true;
    void Promise.all([loadQuota(), keys.load(), usage.load()])
      .then(() => {
        if (failure && notice.el.textContent === failure) notice.clear();
        failure = '';
      }, (err: unknown) => {
        fail(err);
        failure = notice.el.textContent ?? '';
      })
      .finally(() => (running = false));
  };
  const timer = setInterval(refresh, REFRESH_MS);
  document.addEventListener('visibilitychange', refresh);
  function stop(): void {
    clearInterval(timer);
    document.removeEventListener('visibilitychange', refresh);
  }
  return view;
}
