/** The allow_rules table: approvals the user said always to give, per repository or everywhere. */
import type { Db } from './db.js';

export interface AllowRuleRow {
  id: number;
  project_root: string | null;
  tool: string | null;
  pattern: string | null;
  source: 'cli' | 'approval' | 'page';
  created_at: string;
}

export class AllowRuleStore {
  constructor(private readonly db: Db) {}

  add(rule: Omit<AllowRuleRow, 'id' | 'created_at'>): AllowRuleRow {
    const created = new Date().toISOString();
    const result = this.db
      .prepare(
        'INSERT INTO allow_rules (project_root, tool, pattern, source, created_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(rule.project_root, rule.tool, rule.pattern, rule.source, created);
    return { ...rule, id: Number(result.lastInsertRowid), created_at: created };
  }

  get(id: number): AllowRuleRow | undefined {
    return this.db.prepare('SELECT * FROM allow_rules WHERE id = ?').get(id) as AllowRuleRow | undefined;
  }

  /** The rules that apply in a repository (its own and everyone's); every rule when unset. */
  list(projectRoot?: string): AllowRuleRow[] {
    if (projectRoot === undefined)
      return this.db.prepare('SELECT * FROM allow_rules ORDER BY id').all() as AllowRuleRow[];
    return this.db
      .prepare('SELECT * FROM allow_rules WHERE project_root IS NULL OR project_root = ? ORDER BY id')
      .all(projectRoot) as AllowRuleRow[];
  }

  remove(id: number): boolean {
    return this.db.prepare('DELETE FROM allow_rules WHERE id = ?').run(id).changes > 0;
  }
}
