import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KNOWN_REACHES, breach, height, reaches, unplacedFolders } from './layers.mjs';

describe('the layer table', () => {
  it('places every folder under src/', () => {
    expect(unplacedFolders()).toEqual([]);
  });

  it('refuses an import of a higher layer', () => {
    expect(breach('src/review/coupling.ts', 'src/sessions/index.js')).toMatch(/higher layer/);
    expect(breach('src/store/db.ts', 'src/usage/index.js')).toMatch(/higher layer/);
  });

  it('lets a domain reach another only through its face', () => {
    expect(breach('src/merge/land.ts', 'src/worktrees/index.js')).toBeUndefined();
    expect(breach('src/merge/land.ts', 'src/worktrees/snapshot.js')).toMatch(/only through its face/);
    expect(breach('src/sync/push.ts', 'src/merge/pr.js')).toMatch(/only through its face/);
  });

  it('lets a folder that names a second face be reached through either, and nothing else', () => {
    expect(breach('src/cli/commands/mcp.ts', 'src/mcp/serve.js')).toBeUndefined();
    expect(breach('src/server/supervisor.ts', 'src/mcp/index.js')).toBeUndefined();
    expect(breach('src/cli/commands/mcp.ts', 'src/mcp/stdio.js')).toMatch(
      /only through its face, mcp\/index\.ts or mcp\/serve\.ts/,
    );
    expect(breach('src/cli/commands/routines.ts', 'src/worktrees/index.js')).toMatch(/imports only/);
  });

  it('lets any module of an open vocabulary be imported, and a folder import itself', () => {
    expect(breach('src/merge/land.ts', 'src/store/sessions.js')).toBeUndefined();
    expect(breach('src/merge/land.ts', 'src/api/merge.js')).toBeUndefined();
    expect(breach('src/merge/land.ts', 'src/merge/git.js')).toBeUndefined();
  });

  it('holds the clients to the API: the page to src/api and src/events', () => {
    expect(breach('web/src/api.ts', 'src/api/client.js')).toBeUndefined();
    expect(breach('web/src/api.ts', 'src/shared/errors.js')).toMatch(/imports only api, events/);
    expect(breach('src/cli/main.ts', 'src/store/db.js')).toMatch(/imports only/);
  });

  it('lists only known reaches of files that exist', () => {
    for (const reach of KNOWN_REACHES) expect(existsSync(reach.file), reach.file).toBe(true);
  });

  it('lists exactly the reaches that break the rule today: a mended one is dropped, a new one refused', () => {
    const key = (r: { file: string; target: string }): string => `${r.file} -> ${r.target}`;
    expect(reaches().map(key).sort()).toEqual(KNOWN_REACHES.map(key).sort());
  });

  it('measures the folder graph no taller than the layer table allows', () => {
    expect(height()).toBeGreaterThan(1);
    expect(height()).toBeLessThanOrEqual(12);
  });
});
