// Liveness and readiness for load balancers and orchestrators: cheap enough to poll every second.
import type { Store } from '../store/store.js';
import type { TranslationEngine } from '../engines/engine.js';

export interface Readiness {
  ready: boolean;
  /** Why not ready, in words, when not. */
  reasons: string[];
  database: { reachable: boolean; pendingMigrations: string[] };
  engines: { name: string; pairs: number }[];
  /** Apertium pairs with a running pipeline now (the others start on first use). */
  warmPairs: string[];
  draining: boolean;
}

export interface HealthServiceOptions {
  store: Pick<Store, 'health'>;
  engines: readonly TranslationEngine[];
  warmPairs: () => string[];
  /** How long one database check answers readiness polls; default 1000 ms. */
  cacheMs?: number;
  now?: () => number;
}

export class HealthService {
  private draining = false;
  private cached: { at: number; database: Promise<Readiness['database']> } | undefined;

  constructor(private readonly opts: HealthServiceOptions) {}

  /** From now on readiness answers "not ready", so balancers stop sending new work while this node drains. */
  drain(): void {
    this.draining = true;
  }

  async readiness(): Promise<Readiness> {
    const now = (this.opts.now ?? Date.now)();
    // One database round trip per second however many pollers ask (concurrent asks share it).
    if (!this.cached || now - this.cached.at >= (this.opts.cacheMs ?? 1000)) {
      this.cached = { at: now, database: this.opts.store.health() };
    }
    const database = await this.cached.database;
    const engines = this.opts.engines.map((e) => ({ name: e.name, pairs: e.pairs().length }));
    const reasons: string[] = [];
    if (this.draining) reasons.push('shutting down');
    if (!database.reachable) reasons.push('database not reachable');
    else if (database.pendingMigrations.length > 0) reasons.push(`migrations not applied: ${database.pendingMigrations.join(', ')}`);
    if (!engines.some((e) => e.pairs > 0)) reasons.push('no engine can translate');
    return {
      ready: reasons.length === 0,
      reasons,
      database: { reachable: database.reachable, pendingMigrations: database.pendingMigrations },
      engines,
      warmPairs: this.opts.warmPairs(),
      draining: this.draining,
    };
  }
}
