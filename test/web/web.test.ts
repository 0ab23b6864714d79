// The web page in a real browser: Debian's Chromium driven by playwright-core against a real Tolk server (SQLite,
// two Apertium pairs). One browser, one page, the steps in order; screenshots go to .tolk-test/screenshots.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { loadConfig } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { freePort } from '../helpers/harness.js';
import { fixture } from '../helpers/documents.js';
import { unzipAll } from '../helpers/zip.js';

const run = promisify(execFile);
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const SHOTS = '.tolk-test/screenshots';
const CHROMIUM = process.env.TOLK_CHROMIUM ?? '/usr/bin/chromium';
const PHONE = { width: 390, height: 844 };

describe('web page in Chromium', { skip: !existsSync(CHROMIUM) && `no Chromium at ${CHROMIUM} (scripts/setup.sh --test)` }, () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let origin: string;
  let freeOrigin: string;
  let adminKey: string;
  let freeKey: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'tolk-web-'));
  const pageErrors: string[] = [];
  /** The messages of the confirmations the page asked for (all accepted). */
  const dialogs: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  /** A view at desktop and phone width (NAME-desktop.png, NAME-phone.png); `atPhone` checks it while narrow. */
  async function shotBoth(name: string, atPhone?: () => Promise<void>): Promise<void> {
    await shot(`${name}-desktop`);
    const desktop = page.viewportSize()!;
    await page.setViewportSize(PHONE);
    try {
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `${name}: no horizontal scrolling on a phone`);
      await atPhone?.();
      await shot(`${name}-phone`);
    } finally {
      await page.setViewportSize(desktop);
    }
  }
  /** Waits for an error message in the page that says this. */
  const expectError = (text: RegExp) => page.locator('.notice.error', { hasText: text }).waitFor();
  const tab = (name: string) => page.getByRole('button', { name, exact: true }).click();
  async function signIn(key: string): Promise<void> {
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  /** Controls on the page without an accessible name (aria-label, a label, their own text or a title). */
  const unnamedControls = () =>
    page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]')]
        .filter((el) => {
          const labels = (el as HTMLInputElement).labels;
          const labelled = labels ? [...labels].some((l) => l.textContent?.trim()) : false;
          return !(el.getAttribute('aria-label')?.trim() || labelled || el.textContent?.trim() || el.title);
        })
        .map((el) => el.outerHTML.slice(0, 100)),
    );
  /** Text translation characters in the day chart's figures, summed over the range, as the console shows them. */
  async function chartedTextCharacters(): Promise<number> {
    const figure = page.locator('figure', { hasText: 'Characters per day by service' });
    const cells = await figure.locator('tbody tr td:nth-child(2)').allTextContents();
    return cells.reduce((sum, c) => sum + Number(c.replace(/\D/g, '') || 0), 0);
  }
  /** Waits until the per-key chart's figures give the key named so this many characters. */
  const keyCharted = (name: RegExp, characters: number) =>
    page.locator('figure', { hasText: 'Characters per key' }).locator('tbody tr', { has: page.getByRole('rowheader', { name, includeHidden: true }) })
      .getByRole('cell', { name: String(characters), exact: true, includeHidden: true }).waitFor({ state: 'attached' });
  /** The admin console's periodic refresh (REFRESH_MS in web/src/admin.ts, 20 s), made due by the page's clock. */
  const refreshTick = () => page.clock.fastForward('00:21');
  async function translateWith(key: string, text: string): Promise<number> {
    const res = await fetch(`${origin}/v2/translate`, {
      method: 'POST',
      headers: { authorization: `Service-Auth-Key ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: [text], target_lang: 'ES' }),
    });
    await res.body?.cancel();
    return res.status;
  }
  /** Every chart's text is drawn at least this many pixels high (its font size times the SVG's scale on screen). */
  async function chartTextAtLeast(px: number): Promise<void> {
    const sizes = () => page.evaluate(() => [...document.querySelectorAll<SVGTextElement>('svg.chart text')].map((t) => {
      const chart = t.ownerSVGElement!;
      return parseFloat(getComputedStyle(t).fontSize) * (chart.getBoundingClientRect().width / chart.viewBox.baseVal.width);
    }));
    // The charts are redrawn for a new width before the next paint: wait for that frame.
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const all = await sizes();
    assert.ok(all.length > 0 && Math.min(...all) >= px, `chart text sizes ${[...new Set(all.map((s) => s.toFixed(1)))].join(', ')} px`);
  }

  before(async () => {
    rmSync(SHOTS, { recursive: true, force: true }); // no stale screenshot of an earlier run left beside this run's
    mkdirSync(SHOTS, { recursive: true });
    const [port, free] = [await freePort(), await freePort()];
    const env = { TOLK_DATA_DIR: dataDir, TOLK_PORT: String(port), TOLK_FREE_PORT: String(free), TOLK_LOG_LEVEL: 'silent' };
    server = await startServer(loadConfig({ ...env, TOLK_APERTIUM_PAIRS: 'en-es,es-en', TOLK_DOCUMENT_WORKERS: '1' }));
    origin = `http://127.0.0.1:${port}`;
    freeOrigin = `http://127.0.0.1:${free}`;
    const account = async (plan: string) =>
      JSON.parse((await run(process.execPath, [CLI, 'account', 'create', '--plan', plan, '--json'], { env: { ...process.env, ...env } })).stdout)
        .admin_key as string;
    [adminKey, freeKey] = [await account('pro'), await account('free')];
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.setDefaultTimeout(15_000);
    // Script errors and CSP violations; failed API calls (403, 456, the server down) are expected and left out.
    page.on('pageerror', (err) => pageErrors.push(err.message));
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && pageErrors.push(m.text()));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    // The page's timers on a clock the test can move on (time flows as usual otherwise): see refreshTick.
    await page.clock.install();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a missing key, an unknown key and a key of the other plan with clear messages; the free base URL takes the free key', async () => {
    await page.goto(origin);
    await page.getByLabel('API key').waitFor();
    await shotBoth('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectError(/Enter an API key/);
    await signIn('00000000-0000-0000-0000-000000000000');
    await expectError(/unknown or has been deactivated/);
    await signIn(freeKey);
    await expectError(new RegExp(`other plan's address.*${freeOrigin.replace(/[.]/g, '\\.')}`));
    assert.equal(await page.getByRole('link', { name: 'Open the page there' }).getAttribute('href'), `${freeOrigin}/`);
    await shot('sign-in-error');
    // The same page on the free base URL takes the free key.
    await page.getByRole('link', { name: 'Open the page there' }).click();
    await signIn(freeKey);
    await page.getByText('Admin key · Free · admin').waitFor();
    assert.ok(!page.url().includes(freeKey), 'the key is never put in the URL');
    await page.locator('#sign-out').click();
    await page.goto(origin);
  });

  it('translates text as you type, with the detected language; swaps; names a language no pair translates', async () => {
    await signIn(adminKey);
    await page.getByLabel('Text to translate').fill('The cat sleeps in the big red house.');
    await page.waitForFunction(() => /gato/i.test((document.getElementById('target-text') as HTMLTextAreaElement).value));
    assert.match(await page.locator('#detected').textContent() ?? '', /English/);
    assert.match(await page.locator('#char-count').textContent() ?? '', /36 characters/);
    // Apertium's en-es has no formality: the selector is not offered.
    assert.equal(await page.getByLabel('Formality').isVisible(), false);
    assert.deepEqual(await unnamedControls(), []);
    await shotBoth('translator', async () => {
      // On a phone the translation is on the first screen, below the text being typed.
      const box = (await page.getByLabel('Translation').boundingBox())!;
      assert.ok(box.y + 40 <= PHONE.height, `the translation starts at y=${box.y}`);
    });
    // Swap: the translation becomes the source, Spanish → English.
    await page.getByRole('button', { name: 'Swap languages' }).click();
    assert.equal(await page.locator('#source-lang').inputValue(), 'ES');
    await page.waitForFunction(() => /\bcat\b/i.test((document.getElementById('target-text') as HTMLTextAreaElement).value));
    // New text: the old translation is shown as out of date at once; copy and swap act on the typed text only.
    await page.getByLabel('Text to translate').fill('El perro blanco duerme.');
    await page.locator('#translating').waitFor();
    assert.equal(await page.locator('.pane.busy #target-text').count(), 1, 'the stale translation is dimmed');
    await shot('translator-busy');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('The translation of this text is not ready yet.').waitFor();
    await page.getByRole('button', { name: 'Swap languages' }).click();
    assert.equal(await page.getByLabel('Text to translate').inputValue(), 'El perro blanco duerme.', 'swap never replaces the typed text');
    assert.equal(await page.locator('#source-lang').inputValue(), 'EN');
    await page.locator('#translating').waitFor({ state: 'hidden' });
    await page.locator('#source-lang').selectOption('ES');
    await page.locator('#target-lang').selectOption('EN');
    await page.waitForFunction(() => /\bdog\b/i.test((document.getElementById('target-text') as HTMLTextAreaElement).value));
    // Over the request limit: said before anything is sent.
    await page.getByLabel('Text to translate').fill('word '.repeat(27_000));
    await expectError(/over the 128 KiB limit/);
    // A language no installed pair translates (French, detected) is said in words.
    await page.locator('#source-lang').selectOption('');
    await page.getByLabel('Text to translate').fill("Bonjour tout le monde, comment allez-vous aujourd'hui ?");
    await expectError(/'FR' cannot be translated/);
    // Detection is named in the source picker too.
    await page.getByLabel('Text to translate').fill('The dog sleeps in the garden.');
    await page.waitForFunction(() => document.querySelector('#source-lang option[value=""]')?.textContent === 'Detect language (English)');
    // After an error the language detected for the text before is no longer shown.
    await page.getByLabel('Text to translate').fill("Bonjour tout le monde, comment allez-vous aujourd'hui ?");
    await expectError(/'FR' cannot be translated/);
    assert.equal(await page.locator('#detected').textContent(), '');
    assert.equal(await page.locator('#source-lang option[value=""]').textContent(), 'Detect language');
    // HTML typed in is translated as HTML: the tags and their attributes stay, the words between them are translated.
    await page.locator('#target-lang').selectOption('ES');
    const asHtml = page.waitForRequest((r) => r.url().endsWith('/v2/translate') && (r.postData() ?? '').includes('house'));
    await page.getByLabel('Text to translate').fill('<p>The cat sleeps in the <a href="/house">big house</a>.</p>');
    assert.equal(JSON.parse((await asHtml).postData()!).tag_handling, 'html');
    await page.waitForFunction(() => /gato/i.test((document.getElementById('target-text') as HTMLTextAreaElement).value));
    const html = await page.getByLabel('Translation').inputValue();
    assert.match(html, /^<p>.*<a href="\/house">[^<]*casa[^<]*<\/a>.*<\/p>$/, html);
    // Plain text is sent without tag handling (the server still keeps paired tags as placeholders of app strings).
    const sent = page.waitForRequest((r) => r.url().endsWith('/v2/translate') && (r.postData() ?? '').includes('house'));
    await page.getByLabel('Format').selectOption('text');
    assert.equal(JSON.parse((await sent).postData()!).tag_handling, undefined);
    await page.getByLabel('Format').selectOption('auto');
    assert.equal(await page.title(), 'Translator – Tolk');
  });

  it('corrects spelling in the Write view; the result is taken back only when it belongs to the text', async () => {
    await tab('Write');
    assert.equal(await page.title(), 'Write – Tolk');
    // This server has no language model: Rephrase is not offered, and the page says what would bring it.
    assert.deepEqual(await page.locator('#write-mode option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)), ['correct']);
    assert.match(await page.locator('#write-no-model').textContent() ?? '', /needs a language model.*tolk models install llm-NAME/);
    // Only the languages a spelling checker here corrects are offered.
    const offered = await page.locator('#write-lang option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    assert.ok(offered.includes('en-us') && offered.includes('de') && !offered.includes('ja'), offered.join(','));
    await page.getByLabel('Text to improve').fill('The weather is beautifull todday.');
    await page.getByRole('button', { name: 'Improve', exact: true }).click();
    await page.waitForFunction(() => /beautiful today/.test((document.getElementById('write-result') as HTMLTextAreaElement).value));
    await page.getByText('Corrected (English detected).').waitFor();
    assert.equal(await page.getByLabel('Style or tone').isVisible(), false, 'style and tone only for rephrasing');
    assert.deepEqual(await unnamedControls(), []);
    await shotBoth('write');
    // A text without mistakes is said so, not "improved".
    await page.getByLabel('Text to improve').fill('The weather is beautiful today.');
    await page.getByRole('button', { name: 'Improve', exact: true }).click();
    await page.getByText('No spelling or grammar mistakes found (English detected).').waitFor();
    await page.getByLabel('Text to improve').fill('Another text.');
    await page.getByRole('button', { name: 'Use this text' }).click();
    assert.equal(await page.getByLabel('Text to improve').inputValue(), 'Another text.');
    // One request at a time, with Cancel: a held request is cancelled, nothing shown as its result.
    await page.route('**/v2/write/correct', () => {}); // never answered
    await page.getByRole('button', { name: 'Improve', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Improve', exact: true }).isDisabled(), true, 'no second request while one runs');
    await shot('write-running');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Cancelled: nothing was improved.').waitFor();
    assert.equal(await page.getByLabel('Improved text').inputValue(), '');
    assert.equal(await page.getByRole('button', { name: 'Improve', exact: true }).isDisabled(), false);
    await page.unroute('**/v2/write/correct');
  });

  it('creates a glossary and its term changes the translation', async () => {
    await tab('Glossaries');
    await page.getByLabel('Name', { exact: true }).fill('Pets');
    await page.locator('form.card .term-source').fill('cat');
    await page.locator('form.card .term-target').fill('minino');
    await page.getByRole('button', { name: 'Create glossary' }).click();
    // Import a TSV file into the pair's dictionary (the server parses it), then export the table as CSV.
    await page.getByRole('button', { name: 'Edit Pets' }).click();
    const terms = () => page.locator('.editor .term-source').evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    // Import adds to the dictionary by default: "cat" stays, "dog" joins it.
    const tsv = join(dataDir, 'pets.tsv');
    writeFileSync(tsv, 'dog\tperrito\n');
    await page.locator('#import-file').setInputFiles(tsv);
    await page.getByText('Added the entries of pets.tsv.').waitFor();
    assert.deepEqual(await terms(), ['cat', 'dog']);
    // Replace, from a CSV whose header row is not a term.
    await page.locator('#import-mode').selectOption('replace');
    const withHeader = join(dataDir, 'animals.csv');
    writeFileSync(withHeader, 'source,target\ncat,minino\ndog,perrito\n');
    await page.locator('#import-file').setInputFiles(withHeader);
    await page.getByText('Replaced the dictionary with animals.csv (its header row skipped).').waitFor();
    assert.deepEqual(await terms(), ['cat', 'dog']);
    // Rename.
    await page.locator('#glossary-rename').fill('House pets');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByText('Glossary renamed “House pets”.').waitFor();
    await page.getByRole('button', { name: 'Edit House pets' }).waitFor();
    const exported = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export CSV' }).click();
    const csv = join(dataDir, 'pets.csv');
    await (await exported).saveAs(csv);
    assert.equal(readFileSync(csv, 'utf8'), 'cat,minino\ndog,perrito\n');
    assert.deepEqual(await unnamedControls(), []);
    // The language pickers name the languages (with their codes), in the order of their names.
    const sources = await page.locator('#new-glossary-source option').allTextContents();
    assert.ok(sources.includes('English (EN)') && sources.includes('Spanish (ES)'), sources.join(', '));
    assert.deepEqual(sources, [...sources].sort((a, b) => a.localeCompare(b)));
    await shotBoth('glossaries');
    await tab('Translator');
    await page.locator('#source-lang').selectOption('EN');
    await page.getByLabel('Glossary').selectOption({ label: 'House pets' });
    await page.getByLabel('Text to translate').fill('The cat sleeps.');
    await page.getByLabel('Text to translate').press('Control+Enter');
    await page.waitForFunction(() => /minino/i.test((document.getElementById('target-text') as HTMLTextAreaElement).value));
  });

  it('translates two documents at once and downloads the docx', async () => {
    await tab('Documents');
    const file = join(dataDir, 'letter.docx');
    writeFileSync(file, fixture('sample.docx'));
    const note = join(dataDir, 'note.txt');
    writeFileSync(note, 'The white dog sleeps.\n');
    await page.locator('#doc-file').setInputFiles([file, note]);
    await page.getByRole('button', { name: 'Download note.es.txt' }).waitFor({ timeout: 60_000 });
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await page.getByRole('button', { name: 'Download letter.es.docx' }).click({ timeout: 60_000 });
    const saved = join(dataDir, 'letter.es.docx');
    await (await download).saveAs(saved);
    const xml = (await unzipAll(readFileSync(saved))).find(([name]) => name === 'word/document.xml')![1].toString();
    assert.match(xml, /gato/i);
    await page.getByText('Downloaded').first().waitFor();
    assert.deepEqual(await unnamedControls(), []);
    await shotBoth('documents');
  });

  it('keeps a document job across a reload until it is downloaded; a PDF can come back as Word', async () => {
    const stored = () => page.evaluate(() => (JSON.parse(sessionStorage.getItem('tolk.documents') ?? '[]') as { name: string }[]).map((j) => j.name));
    await page.getByLabel('PDF as').selectOption('docx');
    const pdf = join(dataDir, 'brochure.pdf');
    writeFileSync(pdf, fixture('sample.pdf'));
    await page.locator('#doc-file').setInputFiles(pdf);
    // note.txt from the step before was never downloaded: it is still remembered, beside the PDF.
    await page.waitForFunction(() => (JSON.parse(sessionStorage.getItem('tolk.documents') ?? '[]') as { name: string }[]).some((j) => j.name === 'brochure.pdf'));
    assert.deepEqual((await stored()).sort(), ['brochure.pdf', 'note.txt']);
    await page.reload();
    // A row restored after the reload is not "Uploading…": the file is on the server already.
    await page.locator('.doc').first().waitFor();
    assert.equal(await page.locator('.doc-state', { hasText: 'Uploading' }).count(), 0);
    assert.equal(await page.locator('#doc-file').getAttribute('tabindex'), '-1', 'the hidden file input is no Tab stop');
    const item = page.locator('.doc', { hasText: 'brochure.pdf' });
    await item.locator('button, .doc-state.error').first().waitFor({ timeout: 60_000 });
    await shot('documents-after-reload');
    assert.equal(await item.locator('.doc-state.error').count(), 0, (await item.textContent()) ?? '');
    const button = page.getByRole('button', { name: 'Download brochure.es.docx' });
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await button.click();
    const saved = join(dataDir, 'brochure.es.docx');
    await (await download).saveAs(saved);
    assert.ok((await unzipAll(readFileSync(saved))).some(([name]) => name === 'word/document.xml'), 'a Word document');
    await page.getByText('Downloaded').first().waitFor();
    assert.deepEqual(await stored(), ['note.txt'], 'forgotten once downloaded');
    await page.reload();
    await page.getByRole('button', { name: 'Download note.es.txt' }).waitFor();
    assert.equal(await page.locator('.doc', { hasText: 'brochure.pdf' }).count(), 0);
  });

  it('creates, scopes, limits and deactivates a key in the admin console; its use shows beside its limit and refreshes on its own', async () => {
    await tab('Admin console');
    await page.getByLabel('New key name').fill('CI bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#secret-value').textContent()) ?? '';
    assert.match(secret, /^\S{20,}$/);
    // Scopes: the key limited to translation and the language lists.
    const row = page.locator('#keys tr', { has: page.getByLabel('Name of key CI bot') });
    await row.locator('summary').click();
    for (const box of await row.locator('.scope-boxes input').all()) {
      if (!['translate', 'languages'].includes(await box.getAttribute('value') ?? '')) await box.uncheck();
    }
    await page.getByRole('button', { name: 'Set scopes of key CI bot' }).click();
    await page.getByText('Key “CI bot”: scopes set.').waitFor();
    assert.equal(await row.locator('summary').textContent(), 'translate, languages');
    assert.equal(await row.locator('details').getAttribute('open'), '', 'the scopes stay open where they were set');
    // A translation made with the key elsewhere shows up in its use and the per-key chart without a reload or a click,
    // while what the person is typing, the focus and the scroll position stay as they were.
    assert.equal(await translateWith(secret, 'Hello friends.'), 200);
    const name = page.getByLabel('Name of key CI bot');
    await name.fill('CI bot, edited');
    await page.evaluate(() => window.scrollTo(0, 200));
    const scrolled = await page.evaluate(() => window.scrollY);
    await refreshTick();
    await page.waitForFunction(() => document.querySelector('[id^="chars-used-"]')?.textContent === '14 used');
    await keyCharted(/^CI bot \(/, 14);
    assert.equal(await name.inputValue(), 'CI bot, edited');
    assert.ok(await name.evaluate((el) => el === document.activeElement), 'the focus stays in the field being typed in');
    assert.equal(await page.evaluate(() => window.scrollY), scrolled);
    await name.fill('CI bot');
    // The key's use this billing period, under each of its limits (and describing the limit's field).
    const usedBeside = (limit: string) =>
      page.getByLabel(limit).evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent);
    /** Sets the limit and waits for the table to show it (the notice may still say so from the time before). */
    const setLimit = async (characters: string, shown: string) => {
      await page.getByLabel('Character limit of key CI bot').fill(characters);
      await page.locator('#keys tr', { has: page.getByLabel('Name of key CI bot') }).getByRole('button', { name: 'Set limits' }).click();
      await page.getByText('Key “CI bot”: limits set.').waitFor();
      const id = await page.getByLabel('Character limit of key CI bot').getAttribute('aria-describedby');
      await page.waitForFunction(([id, text]) => document.getElementById(id ?? '')?.textContent === text, [id, shown] as const);
    };
    await setLimit('20', '14 of 20 used');
    assert.equal(await usedBeside('Voice minutes limit of key CI bot'), '0 used');
    await setLimit('14', '14 of 14 used, limit reached');
    assert.equal(await usedBeside('Character limit of key CI bot'), '14 of 14 used, limit reached');
    assert.deepEqual(await unnamedControls(), []);
    // On a phone every column of a key, its use and Deactivate included, is on screen without scrolling sideways,
    // and the charts' text is drawn at 11 px or more.
    const deactivate = page.getByRole('button', { name: 'Deactivate key CI bot' });
    await shotBoth('admin', async () => {
      for (const el of [deactivate, page.locator('.used.over')]) {
        const box = (await el.boundingBox())!;
        assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `${await el.textContent()} at x=${box.x}`);
      }
      await chartTextAtLeast(11);
    });
    await chartTextAtLeast(11);
    // Deactivation says it is permanent and what to do instead; Replace makes a new key with the same settings.
    await deactivate.click();
    const inactive = page.locator('#keys tr.inactive', { has: page.getByLabel('Name of key CI bot') });
    await inactive.getByText('Deactivated (permanent)').waitFor();
    assert.match(dialogs.at(-1) ?? '', /permanent.*Replace/s);
    assert.equal(await translateWith(secret, 'Hello.'), 403);
    await page.getByRole('button', { name: 'Replace key CI bot' }).click();
    await page.getByText('Key “CI bot” replaced by a new key.').waitFor();
    assert.match(await page.locator('#new-secret').textContent() ?? '', /replace the deactivated one, with the same limits and scopes.*can never be turned back on/);
    const replacement = (await page.locator('#secret-value').textContent()) ?? '';
    assert.ok(replacement !== secret && /^\S{20,}$/.test(replacement), replacement);
    const active = page.locator('#keys tr:not(.inactive)', { has: page.getByLabel('Name of key CI bot') });
    assert.equal(await active.count(), 1);
    assert.equal(await active.getByLabel('Character limit of key CI bot').inputValue(), '14');
    assert.equal(await active.locator('summary').textContent(), 'translate, languages');
    assert.equal(await active.getByRole('button', { name: 'Deactivate key CI bot' }).count(), 1);
    // The new key works within its limit and its scopes, and its use appears on the next refresh.
    assert.equal(await translateWith(replacement, 'Hello.'), 200);
    assert.equal((await fetch(`${origin}/v3/glossaries`, { headers: { authorization: `Service-Auth-Key ${replacement}` } })).status, 403);
    const usedId = await active.getByLabel('Character limit of key CI bot').getAttribute('aria-describedby');
    await refreshTick();
    await page.waitForFunction((id) => document.getElementById(id!)?.textContent === '6 of 14 used', usedId);
    await keyCharted(/^CI bot \(/, 6);
    // A refresh that cannot reach the server says so, and the message goes once a refresh works again.
    await page.route('**/v2/usage', (route) => route.abort());
    await refreshTick();
    await expectError(/cannot be reached/);
    await page.unrouteAll();
    await refreshTick();
    await page.locator('.notice.error').waitFor({ state: 'detached' });
    assert.deepEqual(await unnamedControls(), []);
    await shotBoth('admin-replaced');
    await page.getByRole('button', { name: 'Done' }).click();
    // The day chart follows a translation of 11 characters made on the page.
    const before = await chartedTextCharacters();
    assert.ok(before > 0, 'the earlier translations are charted');
    await tab('Translator');
    await page.getByLabel('Text to translate').fill('Good night.');
    await page.waitForFunction(() => (document.getElementById('target-text') as HTMLTextAreaElement).value !== '');
    await tab('Admin console');
    assert.equal(await chartedTextCharacters(), before + 11);
    // Usage with a reporting tag (from another client) appears in the per-tag chart once asked for.
    const tagged = await fetch(`${origin}/v2/translate`, {
      method: 'POST',
      headers: { authorization: `Service-Auth-Key ${adminKey}`, 'content-type': 'application/json', 'x-service-reporting-tag': 'newsletter' },
      body: JSON.stringify({ text: ['Hello friends.'], target_lang: 'ES' }),
    });
    assert.equal(tagged.status, 200);
    await page.locator('#refresh-usage').click();
    const perTag = page.locator('figure', { hasText: 'Characters per reporting tag' });
    assert.match((await perTag.locator('tbody tr').first().textContent()) ?? '', /newsletter\s*14/);
  });

  it('shows the quota reached, and a key without admin rights sees no admin console', async () => {
    await page.getByLabel('New key name').fill('Blocked');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#secret-value').textContent()) ?? '';
    await page.getByLabel('Character limit of key Blocked').fill('0');
    await page.locator('#keys tr', { has: page.getByLabel('Character limit of key Blocked') }).getByRole('button', { name: 'Set limits' }).click();
    await page.getByText('Key “Blocked”: limits set.').waitFor();
    await page.locator('#sign-out').click();
    await signIn(secret);
    await page.getByLabel('Text to translate').fill('Hello');
    await expectError(/Quota reached/);
    assert.equal(await page.getByRole('button', { name: 'Admin console', exact: true }).count(), 0);
  });

  it('reads on a phone-width screen in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize(PHONE);
    for (const name of ['Documents', 'Write', 'Glossaries', 'Translator']) {
      await tab(name);
      await page.locator('main h2').waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await shot(`${name.toLowerCase()}-phone-dark`);
      assert.ok(overflow <= 0, `${name}: no horizontal scrolling (overflow ${overflow}px)`);
    }
    // The admin console and its charts too, with the admin key.
    await page.locator('#sign-out').click();
    await signIn(adminKey);
    await tab('Admin console');
    await page.locator('figure', { hasText: 'Characters per key' }).waitFor();
    await shot('admin-phone-dark');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'admin console: no horizontal scrolling');
    await chartTextAtLeast(11);
    // A view chosen while another is still loading is the one that stays: the admin console's key list is held back
    // until the translator is on screen.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/v2/admin/developer-keys', async (route) => {
      await held;
      await route.continue();
    });
    await tab('Admin console');
    await tab('Translator');
    await page.getByRole('heading', { name: 'Translate text' }).waitFor();
    const keysAnswered = page.waitForResponse('**/v2/admin/developer-keys');
    release();
    await keysAnswered;
    await page.waitForLoadState('networkidle');
    await page.unrouteAll();
    assert.equal(await page.locator('main h2').textContent(), 'Translate text');
  });

  it('says so when the server is down', async () => {
    await server.close();
    await page.getByLabel('Text to translate').fill('Are you there?');
    await page.getByLabel('Text to translate').press('Control+Enter');
    await expectError(/cannot be reached/);
    await shot('server-down');
    assert.deepEqual(pageErrors, [], 'no script error or CSP violation in the whole run');
  });
});
