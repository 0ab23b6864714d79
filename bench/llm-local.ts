// Why: the local language model must cost next to nothing on top of llama.cpp. Measures, in one process and on the
// same generated GGUF model (scripts/make-test-llm.mjs), generation through Tolk's LocalLanguageModel (fair slots,
// lazy load, cancellation hooks, token accounting) against node-llama-cpp called directly (LlamaChat on its own
// context) with the same chat, greedy, the same token limit: tokens per second, time to the first token, and the
// memory of the loaded model (resident set growth at load, and Tolk's estimate that the budget is checked against).
// Rounds alternate the two, and the median is reported.
//   node dist/bench/llm-local.js [--rounds=7] [--tokens=100] [--layers=4] [--embd=256] [--threads=1]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getLlama, JinjaTemplateChatWrapper, LlamaChat, type ChatHistoryItem } from 'node-llama-cpp';
import { LocalLanguageModel, llmModelsDir } from '../src/engines/llm/index.js';

const args = Object.fromEntries(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string]));
const rounds = Number(args.rounds ?? 7);
const maxTokens = Number(args.tokens ?? 100);
const threads = Number(args.threads ?? 1);
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'tolk-bench-llm-'));
const modelsDir = join(work, 'models');
mkdirSync(llmModelsDir(modelsDir), { recursive: true });
const file = join(llmModelsDir(modelsDir), 'bench.gguf');
execFileSync(process.execPath, [join(repoRoot, 'scripts/make-test-llm.mjs'), '--out', file, '--layers', args.layers ?? '4', '--embd', args.embd ?? '256'], { stdio: 'inherit' });

const messages = [
  { role: 'system' as const, content: 'You are a helpful assistant.' },
  { role: 'user' as const, content: 'Write a long story about the city, the water and the house of a friend.' },
];

interface Run {
  tokens: number;
  ms: number;
  firstTokenMs: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rss = () => process.memoryUsage().rss;

// node-llama-cpp directly
const llama = await getLlama({ gpu: false, build: 'never' });
let before = rss();
const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
const context = await model.createContext({ contextSize: 4096, threads });
// the model's own chat template, as Tolk renders it: the same prompt tokens on both paths
const chatWrapper = new JinjaTemplateChatWrapper({ template: model.fileInfo.metadata.tokenizer.chat_template!, tokenizer: model.tokenizer });
async function direct(limit = maxTokens): Promise<Run> {
  const sequence = context.getSequence();
  const chat = new LlamaChat({ contextSequence: sequence, chatWrapper });
  const history: ChatHistoryItem[] = [...messages.map((m) => ({ type: m.role, text: m.content }) as ChatHistoryItem), { type: 'model', response: [] }];
  const started = performance.now();
  let first = 0;
  let tokens = 0;
  await chat.generateResponse(history, {
    maxTokens: limit,
    temperature: 0,
    onToken: (chunk) => {
      first ||= performance.now() - started;
      tokens += chunk.length;
    },
  });
  const ms = performance.now() - started;
  chat.dispose({ disposeSequence: false });
  sequence.dispose();
  return { tokens, ms, firstTokenMs: first };
}
await direct(1); // measured like Tolk's load below: load, context, one generated token
const directRssMb = (rss() - before) / 1048576;

// through Tolk
const local = new LocalLanguageModel({ dir: llmModelsDir(modelsDir), memoryBudgetMb: 8192, threads, contextSize: 4096, timeoutMs: 600_000, rescanIntervalMs: 0 });
await local.start();
before = rss();
await local.complete(messages, { maxTokens: 1 }); // loads the model
const tolkRssMb = (rss() - before) / 1048576;
async function tolk(): Promise<Run> {
  const started = performance.now();
  let first = 0;
  let tokens = 0;
  await local.complete(messages, {
    maxTokens,
    onTokens: (n) => {
      first ||= performance.now() - started;
      tokens += n;
    },
  });
  return { tokens, ms: performance.now() - started, firstTokenMs: first };
}

await direct(); // warm-up of both
await tolk();
const results: { direct: Run[]; tolk: Run[] } = { direct: [], tolk: [] };
for (let r = 0; r < rounds; r++) {
  // alternate which goes first, so neither always runs on a warmer machine
  if (r % 2 === 0) {
    results.direct.push(await direct());
    results.tolk.push(await tolk());
  } else {
    results.tolk.push(await tolk());
    results.direct.push(await direct());
  }
}
const summary = (runs: Run[]) => ({
  tokens: median(runs.map((r) => r.tokens)),
  tokensPerSecond: median(runs.map((r) => (r.tokens / r.ms) * 1000)),
  firstTokenMs: median(runs.map((r) => r.firstTokenMs)),
});
const d = summary(results.direct);
const t = summary(results.tolk);
const fmt = (x: number) => x.toFixed(1);
console.log(`model: ${file} (generated, ${args.layers ?? 4} layers, ${args.embd ?? 256} wide), threads ${threads}, ${maxTokens} tokens max, ${rounds} rounds (median)`);
console.log('path                      tokens  tokens/s  first token ms  RSS growth at load MB');
console.log(`node-llama-cpp directly   ${String(d.tokens).padStart(6)}  ${fmt(d.tokensPerSecond).padStart(8)}  ${fmt(d.firstTokenMs).padStart(14)}  ${fmt(directRssMb).padStart(21)}`);
console.log(`Tolk LocalLanguageModel   ${String(t.tokens).padStart(6)}  ${fmt(t.tokensPerSecond).padStart(8)}  ${fmt(t.firstTokenMs).padStart(14)}  ${fmt(tolkRssMb).padStart(21)}`);
console.log(`Tolk / direct tokens/s: ${((t.tokensPerSecond / d.tokensPerSecond) * 100).toFixed(1)} %`);
console.log(`Tolk's memory estimate for the loaded model and context: ${fmt((local.stats().estimatedBytes ?? 0) / 1048576)} MB`);
console.log('raw tokens/s direct:', results.direct.map((r) => fmt((r.tokens / r.ms) * 1000)).join(' '), '| tolk:', results.tolk.map((r) => fmt((r.tokens / r.ms) * 1000)).join(' '));

await local.close();
await context.dispose();
await model.dispose();
rmSync(work, { recursive: true, force: true });
