// Who is served next when several requesters (accounts) wait for one model: a request is cut into chunks, and each
// batch takes a chunk of the requester served longest ago at a time, so a short request never waits behind a document.

/**
 * Segments per queued chunk: a long request is served a chunk at a time, taking turns with the other requesters
 * (accounts) of the same model, the one served longest ago first, so a short request never waits behind a document.
 */
export const CHUNK_SEGMENTS = 16;

export interface Request {
  key: string;
  /** Who asked (an account id; '' when unknown). */
  requester: string;
  out: string[];
  pending: number;
  settled: boolean;
  timer: NodeJS.Timeout | undefined;
  resolve: (out: string[]) => void;
  reject: (err: Error) => void;
}

export interface Chunk {
  request: Request;
  at: number;
  texts: string[];
  /** Which texts are HTML (the runtime's HTML mode, tags carried by word alignment). */
  html: boolean[];
  seq: number;
  /** When it was queued (performance.now()): how long the oldest chunk of a model has waited decides a new copy. */
  queuedAt: number;
}

/** The turn at which each requester was last served; a requester with nothing queued is forgotten. */
export class RequesterTurns {
  private readonly lastServed = new Map<string, number>();
  private turns = 0;

  /** The next batch of at most maxSegments segments from what waits, fairly across requesters, oldest chunk first. */
  pick(waiting: Chunk[], maxSegments: number): Chunk[] {
    const left = [...waiting];
    const batch: Chunk[] = [];
    let segments = 0;
    const turn = (c: Chunk) => this.lastServed.get(c.request.requester) ?? -1;
    for (;;) {
      let next: Chunk | undefined;
      for (const c of left) {
        if (segments > 0 && segments + c.texts.length > maxSegments) continue;
        if (!next || turn(c) < turn(next) || (turn(c) === turn(next) && c.seq < next.seq)) next = c;
      }
      if (!next) break;
      left.splice(left.indexOf(next), 1);
      batch.push(next);
      segments += next.texts.length;
      // Re-inserted last: the map stays in turn order, and requesters with nothing queued are dropped from its front.
      this.lastServed.delete(next.request.requester);
      this.lastServed.set(next.request.requester, this.turns++);
    }
    return batch;
  }

  /** Forgets requesters that have nothing queued any more (the oldest first), keeping the map small. */
  forgetAllBut(queued: Set<string>): void {
    for (const requester of this.lastServed.keys()) {
      if (this.lastServed.size <= queued.size) break;
      if (!queued.has(requester)) this.lastServed.delete(requester);
    }
  }
}
