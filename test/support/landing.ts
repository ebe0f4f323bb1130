/** Landing-work tests: a repository's config committed, and finished scripted sessions with real work. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionView } from '../../src/api/index.js';
import type { TestBaton } from './baton.js';

/** Commits `.baton/config.json` in the repository. */
export function configure(baton: TestBaton, dir: string, config: unknown): void {
  mkdirSync(join(dir, '.baton'), { recursive: true });
  writeFileSync(join(dir, '.baton', 'config.json'), JSON.stringify(config));
  baton.git(dir, 'add', '.baton');
  baton.git(dir, 'commit', '-qm', 'baton config');
}

/** A session that commits `committed` files and leaves `uncommitted` ones on disk, finished and ready for review. */
export async function finishedSession(
  baton: TestBaton,
  dir: string,
  name: string,
  files: { committed?: Record<string, string>; uncommitted?: Record<string, string> },
): Promise<SessionView> {
  const steps: unknown[] = [];
  for (const [path, content] of Object.entries(files.committed ?? {}))
    steps.push({ write: { path, content } });
  if (files.committed !== undefined)
    steps.push(
      { run: ['git', 'add', '--all'] },
      { run: ['git', 'commit', '-qm', `${name}: committed work`] },
    );
  for (const [path, content] of Object.entries(files.uncommitted ?? {}))
    steps.push({ write: { path, content } });
  await baton.ok(
    ['dispatch', `${name}: do the thing\nwith detail`, '--name', name, '--script', baton.script(steps)],
    { cwd: dir },
  );
  return baton.waitForState(name, 'ready_for_review');
}
