import type { Listing } from '../bazaar/listing.ts';
import type { SqlDriver } from './sql-store.ts';

/** A snapshot run, as products and the observatory see it. */
export interface BazaarSnapshotRecord {
  id: number;
  /** UTC day the snapshot stands for, `YYYY-MM-DD`. */
  day: string;
  state: 'running' | 'complete' | 'superseded' | 'failed';
  sources: string[];
  startedAt: Date;
  completedAt: Date | null;
  listings: number;
  malformed: number;
  duplicates: number;
  pages: number;
  detail: string | null;
}

export interface SnapshotStats {
  malformed: number;
  duplicates: number;
  pages: number;
}

/**
 * Bazaar snapshots in the shared store (tables of migration 9): a run starts `running`, ends
 * `complete` with all its listings written in one transaction (superseding an earlier complete
 * snapshot of the same day, which is kept), or `failed`. Readers only ever see complete snapshots.
 */
export interface BazaarSnapshotStore {
  begin(day: string, sources: string[]): Promise<number>;
  complete(id: number, listings: readonly Listing[], stats: SnapshotStats): Promise<void>;
  fail(id: number, detail: string, stats: SnapshotStats): Promise<void>;
  /** Complete snapshots, newest day first. */
  snapshots(limit: number): Promise<BazaarSnapshotRecord[]>;
  /** The most recent runs of any state, newest first (operators: what happened). */
  runs(limit: number): Promise<BazaarSnapshotRecord[]>;
  listings(snapshotId: number): Promise<Listing[]>;
  /** One listing in every complete snapshot that has it, oldest first. */
  history(key: string): Promise<{ snapshotId: number; day: string; listing: Listing }[]>;
}

/** Rows per INSERT statement when a snapshot is written. */
const INSERT_BATCH = 400;

interface SnapshotRow {
  id: string | number;
  day: string | Date;
  state: BazaarSnapshotRecord['state'];
  sources: string;
  started_at: Date | string;
  completed_at: Date | string | null;
  listings: number;
  malformed: number;
  duplicates: number;
  pages: number;
  detail: string | null;
}

const SNAPSHOT_COLUMNS = `id, to_char(day, 'YYYY-MM-DD') AS day, state, sources, started_at, completed_at, listings, malformed, duplicates, pages, detail`;

export class SqlBazaarSnapshots implements BazaarSnapshotStore {
  constructor(private readonly db: { query<T>(sql: string, params?: unknown[]): Promise<T[]>; transaction<R>(fn: (tx: Pick<SqlDriver, 'query'>) => Promise<R>): Promise<R> }) {}

  async begin(day: string, sources: string[]): Promise<number> {
    const [row] = await this.db.query<{ id: string | number }>(`INSERT INTO bazaar_snapshots (day, state, sources) VALUES ($1, 'running', $2) RETURNING id`, [day, JSON.stringify(sources)]);
    return Number(row!.id);
  }

  async complete(id: number, listings: readonly Listing[], stats: SnapshotStats): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (let i = 0; i < listings.length; i += INSERT_BATCH) {
        const batch = listings.slice(i, i + INSERT_BATCH);
        const values = batch.map((_, j) => `($1, $${j * 5 + 2}, $${j * 5 + 3}, $${j * 5 + 4}, $${j * 5 + 5}, $${j * 5 + 6})`).join(', ');
        const params = [id, ...batch.flatMap((l) => [l.key, l.category, l.payTo, l.network, JSON.stringify(l)])];
        await tx.query(`INSERT INTO bazaar_listings (snapshot_id, key, category, pay_to, network, body) VALUES ${values}`, params);
      }
      await tx.query(`UPDATE bazaar_snapshots SET state = 'superseded' WHERE state = 'complete' AND day = (SELECT day FROM bazaar_snapshots WHERE id = $1)`, [id]);
      await tx.query(
        `UPDATE bazaar_snapshots SET state = 'complete', completed_at = now(), listings = $2, malformed = $3, duplicates = $4, pages = $5 WHERE id = $1`,
        [id, listings.length, stats.malformed, stats.duplicates, stats.pages],
      );
    });
  }

  async fail(id: number, detail: string, stats: SnapshotStats): Promise<void> {
    await this.db.query(`UPDATE bazaar_snapshots SET state = 'failed', completed_at = now(), detail = $2, malformed = $3, duplicates = $4, pages = $5 WHERE id = $1`, [
      id,
      detail.slice(0, 500),
      stats.malformed,
      stats.duplicates,
      stats.pages,
    ]);
  }

  async snapshots(limit: number): Promise<BazaarSnapshotRecord[]> {
    const rows = await this.db.query<SnapshotRow>(`SELECT ${SNAPSHOT_COLUMNS} FROM bazaar_snapshots WHERE state = 'complete' ORDER BY day DESC LIMIT $1`, [limit]);
    return rows.map(snapshotOf);
  }

  async runs(limit: number): Promise<BazaarSnapshotRecord[]> {
    const rows = await this.db.query<SnapshotRow>(`SELECT ${SNAPSHOT_COLUMNS} FROM bazaar_snapshots ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map(snapshotOf);
  }

  async listings(snapshotId: number): Promise<Listing[]> {
    const rows = await this.db.query<{ body: string }>(`SELECT body FROM bazaar_listings WHERE snapshot_id = $1 ORDER BY key`, [snapshotId]);
    return rows.map((r) => JSON.parse(r.body) as Listing);
  }

  async history(key: string): Promise<{ snapshotId: number; day: string; listing: Listing }[]> {
    const rows = await this.db.query<{ id: string | number; day: string; body: string }>(
      `SELECT s.id, to_char(s.day, 'YYYY-MM-DD') AS day, l.body FROM bazaar_listings l JOIN bazaar_snapshots s ON s.id = l.snapshot_id
       WHERE l.key = $1 AND s.state = 'complete' ORDER BY s.day`,
      [key],
    );
    return rows.map((r) => ({ snapshotId: Number(r.id), day: r.day, listing: JSON.parse(r.body) as Listing }));
  }
}

function snapshotOf(r: SnapshotRow): BazaarSnapshotRecord {
  return {
    id: Number(r.id),
    day: typeof r.day === 'string' ? r.day : r.day.toISOString().slice(0, 10),
    state: r.state,
    sources: JSON.parse(r.sources) as string[],
    startedAt: new Date(r.started_at),
    completedAt: r.completed_at === null ? null : new Date(r.completed_at),
    listings: Number(r.listings),
    malformed: Number(r.malformed),
    duplicates: Number(r.duplicates),
    pages: Number(r.pages),
    detail: r.detail,
  };
}
