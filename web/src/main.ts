// The page's shell: sign-in with an API key (kept in sessionStorage), then the views the key may use.
import { ApiError, allows, call, currentKey, forgetKey, resetCaches, setKey, type Session } from './api.js';
import { adminView } from './admin.js';
import { documentsView } from './documents.js';
import { Notice, field, h } from './dom.js';
import { glossariesView } from './glossaries.js';
import { translatorView } from './translator.js';
import { writeView } from './write.js';

interface View {
  id: string;
  title: string;
  build: (session: Session) => Promise<HTMLElement>;
  allowed: (session: Session) => boolean;
}

const VIEWS: View[] = [
  { id: 'translate', title: 'Translator', build: translatorView, allowed: (s) => allows(s, 'translate') && allows(s, 'languages') },
  { id: 'documents', title: 'Documents', build: documentsView, allowed: (s) => allows(s, 'document') && allows(s, 'languages') },
  { id: 'write', title: 'Write', build: writeView, allowed: (s) => allows(s, 'write') },
  { id: 'glossaries', title: 'Glossaries', build: () => glossariesView(), allowed: (s) => allows(s, 'glossary') },
  { id: 'admin', title: 'Admin console', build: () => adminView(), allowed: (s) => s.admin },
];

const main = document.getElementById('main')!;
const nav = document.getElementById('nav')!;
const notice = new Notice();
/** Counts what main was asked to show: a view still loading when another (or sign-in) is chosen is dropped. */
let shown = 0;

function signInView(message?: string): void {
  shown++;
  nav.replaceChildren();
  const key = h('input', { type: 'password', id: 'api-key', autocomplete: 'off', spellcheck: 'false' });
  const form = h('form', { class: 'card signin', 'aria-labelledby': 'signin-title', onsubmit: (e: Event) => {
    e.preventDefault();
    if (key.value.trim() === '') return notice.show('Enter an API key to sign in.', 'error');
    setKey(key.value.trim());
    void start();
  } },
  h('h2', { id: 'signin-title' }, 'Sign in'),
  h('p', {}, 'Sign in with a Tolk API key. It is kept in this browser tab only and forgotten when the tab closes.'),
  field('API key', key),
  h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  notice.el);
  main.replaceChildren(form);
  document.title = 'Sign in – Tolk';
  if (message) notice.show(message, 'error');
  // A key of the other plan: link to that plan's page (the key is not carried over; it is typed there again).
  const other = message && /other plan's address/.test(message) ? /https?:\/\/[^\s,]+/.exec(message)?.[0] : undefined;
  if (other) notice.el.append(' ', h('a', { href: `${new URL(other).origin}/` }, 'Open the page there'));
  key.focus();
}

function signOut(): void {
  forgetKey();
  resetCaches();
  notice.clear();
  signInView();
}

async function show(session: Session, view: View): Promise<void> {
  const mine = ++shown;
  for (const b of nav.querySelectorAll('button[data-view]')) b.setAttribute('aria-current', String(b.getAttribute('data-view') === view.id));
  // the tab, the history and bookmarks name the view
  document.title = `${view.title} – Tolk`;
  main.replaceChildren(h('p', { class: 'hint', role: 'status' }, 'Loading…'));
  try {
    const built = await view.build(session);
    if (mine !== shown) return;
    main.replaceChildren(built);
    main.querySelector('h2')?.setAttribute('tabindex', '-1');
    main.querySelector<HTMLElement>('h2')?.focus();
  } catch (err) {
    if (mine !== shown) return;
    const message = err instanceof ApiError ? err.message : String(err);
    if (err instanceof ApiError && err.status === 403 && /unknown|other plan/.test(message)) return signInView(message);
    const retry = h('button', { type: 'button', onclick: () => void show(session, view) }, 'Try again');
    main.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, message), retry);
  }
  location.hash = view.id;
}

async function start(): Promise<void> {
  resetCaches(); // a new key may see other languages
  if (!currentKey()) return signInView();
  let session: Session;
  try {
    session = await call<Session>('GET', '/web/api/session');
  } catch (err) {
    const message = err instanceof ApiError ? err.message : String(err);
    // Keep the key when the server is only unreachable, so that reloading later works.
    if (!(err instanceof ApiError && err.status === 0)) forgetKey();
    return signInView(message);
  }
  const views = VIEWS.filter((v) => v.allowed(session));
  nav.replaceChildren(
    ...views.map((v) => h('button', { type: 'button', 'data-view': v.id, onclick: () => void show(session, v) }, v.title)),
    h('span', { class: 'who' }, `${session.label} · ${session.plan === 'free' ? 'Free' : 'Pro'}${session.admin ? ' · admin' : ''}`),
    h('button', { type: 'button', id: 'sign-out', onclick: signOut }, 'Sign out'));
  if (views.length === 0) {
    main.replaceChildren(h('p', { class: 'notice error', role: 'alert' }, 'This key may not use any part of this page (its scopes exclude it).'));
    return;
  }
  const wanted = views.find((v) => `#${v.id}` === location.hash) ?? views[0]!;
  await show(session, wanted);
}

void start();
