/** The port_leases table: which session holds which port, under which variable name. */
import type { Db } from './db.js';

export interface PortLease {
  port: number;
  session_id: string;
  name: string;
}

export class PortLeaseStore {
  constructor(private readonly db: Db) {}

  /** Records the leases together or not at all; a port someone holds already fails the whole lease. */
  lease(sessionId: string, ports: readonly { name: string; port: number }[]): void {
    const insert = this.db.prepare(
      'INSERT INTO port_leases (port, session_id, name, leased_at) VALUES (?, ?, ?, ?)',
    );
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const p of ports) insert.run(p.port, sessionId, p.name, now);
    })();
  }

  held(): Set<number> {
    return new Set(
      (this.db.prepare('SELECT port FROM port_leases').all() as { port: number }[]).map((r) => r.port),
    );
  }

  of(sessionId: string): PortLease[] {
    return this.db
      .prepare('SELECT port, session_id, name FROM port_leases WHERE session_id = ? ORDER BY rowid')
      .all(sessionId) as PortLease[];
  }

  all(): PortLease[] {
    return this.db
      .prepare('SELECT port, session_id, name FROM port_leases ORDER BY port')
      .all() as PortLease[];
  }

  release(sessionId: string): number {
    return this.db.prepare('DELETE FROM port_leases WHERE session_id = ?').run(sessionId).changes;
  }
}
