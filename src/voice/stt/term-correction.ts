// Puts spotted spoken terms into a concluded transcript: a keyword spotter reports a term some time after it was
// said; the words of the main hypothesis around that time whose pronunciation is closest to the term's are
// replaced by the term's written form. Nothing is inserted where no nearby words sound like the term.

export interface TimedWord {
  text: string;
  /** Phones of the word as the recogniser decoded it (null if unknown: never replaced). */
  phones: string[] | null;
  startMs: number;
  endMs: number;
}

export interface TermDetection {
  /** The written form to put into the transcript. */
  term: string;
  phones: string[];
  /** When the spotter reported it (it ends roughly 100–350 ms earlier). */
  reportedAtMs: number;
}

/** Rough length of one phone, to place the start of a spotted term. */
const MS_PER_PHONE = 80;
/** Slack before the estimated start: reports lag the end of the term by a variable delay. */
const WINDOW_SLACK_MS = 400;
/** At most this many recognised words stand for one term ("to bernie to" for "Kubernetes"). */
const MAX_SPAN_WORDS = 4;
/**
 * The closest span must be this close (phone edits per phone), or the detection is not placed. Placed terms in a
 * trial here scored 0.14–0.50; a false "Zendesk" over "as investors" scored 0.60.
 */
const MAX_RELATIVE_DISTANCE = 0.5;

/** Phone edit distance (Levenshtein). */
export function phoneDistance(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

interface Placement {
  detection: number;
  i: number;
  j: number;
  cost: number;
  gap: number;
}

/** The span of unused words near the detection whose phones are closest to the term's (cost per phone). */
function bestSpan(words: readonly TimedWord[], used: readonly boolean[], d: TermDetection, detection: number): Placement | null {
  const from = d.reportedAtMs - d.phones.length * MS_PER_PHONE - WINDOW_SLACK_MS;
  const to = d.reportedAtMs;
  let best: Placement | null = null;
  for (let i = 0; i < words.length; i++) {
    const phones: string[] = [];
    for (let j = i; j < Math.min(words.length, i + MAX_SPAN_WORDS); j++) {
      const w = words[j]!;
      if (used[j] || !(w.endMs > from && w.startMs < to) || !w.phones) break;
      phones.push(...w.phones);
      // Edits per phone of the longer side: a long garbled span is not cheaper than a short one for its length.
      const cost = phoneDistance(phones, d.phones) / Math.max(phones.length, d.phones.length);
      // Ties go to the span ending closest to where the term most likely ended.
      const gap = Math.abs(w.endMs - (d.reportedAtMs - 150));
      if (!best || cost < best.cost || (cost === best.cost && gap < best.gap)) best = { detection, i, j, cost, gap };
    }
  }
  return best && best.cost <= MAX_RELATIVE_DISTANCE ? best : null;
}

/**
 * The transcript's words with detected terms in place. Detections competing for the same words (a false alarm
 * beside a real term) are settled best match first: each round places the detection whose span sounds closest.
 */
export function correctWithTerms(words: readonly TimedWord[], reported: readonly TermDetection[]): string[] {
  // The spotter may report one utterance of a term twice a few frames apart ("Ansible" at 4300 and 4500 ms): one term.
  const detections: TermDetection[] = [];
  for (const d of [...reported].sort((a, b) => a.reportedAtMs - b.reportedAtMs)) {
    const twin = detections.find((e) => e.term === d.term && d.reportedAtMs - e.reportedAtMs <= d.phones.length * MS_PER_PHONE);
    if (!twin) detections.push(d);
  }
  const out: (string | null)[] = words.map((w) => w.text);
  const used = new Array<boolean>(words.length).fill(false);
  const pending = new Set(detections.map((_, k) => k));
  for (;;) {
    let best: Placement | null = null;
    for (const k of pending) {
      const p = bestSpan(words, used, detections[k]!, k);
      if (p && (!best || p.cost < best.cost)) best = p;
    }
    if (!best) break;
    pending.delete(best.detection);
    out[best.i] = detections[best.detection]!.term;
    for (let k = best.i; k <= best.j; k++) used[k] = true;
    for (let k = best.i + 1; k <= best.j; k++) out[k] = null;
  }
  return out.filter((w): w is string => w !== null);
}
