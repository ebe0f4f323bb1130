import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { openDb, type Db } from '../store/db.js';
import type { SessionWithProject } from '../store/sessions.js';
import { ReviewService, WATCH_MS } from './service.js';

let dir: string;
let db: Db;
let now: number;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-review-service-'));
  db = openDb(join(dir, 'baton.db'));
  now = Date.parse('2026-01-01T10:00:00Z');
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

// A session whose worktree is gone: listed by the store, left out of every group.
const gone = {
  id: 's1',
  name: 'gone',
  project_id: 'p1',
  project_name: 'app',
  project_root: '/nowhere/app',
  worktree: '/nowhere/wt',
  removed_at: null,
} as SessionWithProject;

function service(): { review: ReviewService; bus: WorkspaceBus } {
  const bus = new WorkspaceBus(db, () => new Date(now));
  const review = new ReviewService({
    db,
    bus,
    sessions: () => [gone],
    reply: () => Promise.resolve(),
    clock: () => new Date(now),
  });
  return { review, bus };
}

describe('ReviewService', () => {
  it('publishes review.groups_changed only when the groups differ from the last ones', async () => {
    const { review, bus } = service();
    expect(await review.listGroups('app')).toMatchObject({ projects: [{ project: 'app', groups: [] }] });
    await review.listGroups('app');
    await review.refresh('app');
    expect(bus.list().map((e) => [e.type, e.data])).toEqual([
      ['review.groups_changed', { project: 'app', groups: [] }],
    ]);
  });

  it('keeps a project current for half an hour after someone last asked about it', async () => {
    const { review } = service();
    expect(review.watched('app')).toBe(false);
    await review.listGroups('app');
    expect(review.watched('app')).toBe(true);
    now += WATCH_MS - 1;
    // Its own refreshes do not extend the watch: only people asking do.
    await review.refresh('app');
    expect(review.watched('app')).toBe(true);
    now += 1;
    expect(review.watched('app')).toBe(false);
  });

  it('names the projects it knows when asked for another', async () => {
    const { review } = service();
    await expect(review.listGroups('elsewhere')).rejects.toThrow(
      'No project "elsewhere" has live sessions (projects: app).',
    );
    await expect(review.group('3', 'app')).rejects.toThrow(
      'Project app has no live sessions, so no group 3.',
    );
  });
});
