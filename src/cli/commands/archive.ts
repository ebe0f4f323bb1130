/**
 * `baton du`, `baton gc [--dry-run]`, `baton snapshots`, `baton restore` (decision 62, "Carried changes
 * and restores go through a tree"), `baton checkpoints` (decision 160).
 */
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function du(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const view = await (await client(ctx)).call('GET /api/worktrees/disk', {});
  if (opts.json === true) return printJson(ctx, view);
  const width = Math.max(7, ...view.worktrees.map((w) => w.session.length));
  ctx.out.write(`${'session'.padEnd(width)}  ${'owned'.padStart(10)}  ${'shared'.padStart(10)}  worktree\n`);
  for (const w of view.worktrees)
    ctx.out.write(
      `${w.session.padEnd(width)}  ${mb(w.ownedBytes).padStart(10)}  ${mb(w.sharedBytes).padStart(10)}  ${w.worktree}\n`,
    );
  ctx.out.write(
    `total: ${mb(view.totalOwnedBytes)} owned, ${mb(view.totalSharedBytes)} shared by hard link (each file counted once)\n`,
  );
}

export async function gc(ctx: Context, opts: { dryRun?: boolean; json?: boolean }): Promise<void> {
  const view = await (
    await client(ctx)
  ).call('POST /api/worktrees/gc', { body: { dryRun: opts.dryRun === true } });
  if (opts.json === true) return printJson(ctx, view);
  if (view.decisions.length === 0) {
    ctx.out.write('Nothing to archive: no worktree is past the cleanup policy.\n');
    return;
  }
  for (const d of view.decisions) {
    const done = view.archived.find((a) => a.name === d.name);
    const what = view.dryRun ? 'would archive' : 'archived';
    ctx.out.write(
      `${what} ${d.name}: ${d.why}${done?.snapshotRef ? ` → uncommitted work in ${done.snapshotRef}` : ''}\n`,
    );
  }
  if (view.dryRun)
    ctx.out.write(
      'Dry run: nothing was changed. `baton gc` archives them (uncommitted work is snapshotted first).\n',
    );
}

export async function snapshots(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const view = await (await client(ctx)).call('GET /api/snapshots', {});
  if (opts.json === true) return printJson(ctx, view);
  if (view.snapshots.length === 0) {
    ctx.out.write('No snapshots in this repository.\n');
    return;
  }
  for (const s of view.snapshots)
    ctx.out.write(`${s.name.padEnd(24)} ${s.createdAt}  ${s.commit.slice(0, 10)}  ${s.subject}\n`);
  ctx.out.write('`baton restore <name>` brings one back as a worktree.\n');
}

export async function restore(
  ctx: Context,
  name: string,
  opts: { as?: string; json?: boolean },
): Promise<void> {
  const view = await (
    await client(ctx)
  ).call('POST /api/snapshots/:name/restore', {
    params: { name },
    body: opts.as === undefined ? {} : { as: opts.as },
  });
  if (opts.json === true) return printJson(ctx, view);
  ctx.out.write(
    `Restored ${view.snapshot.name} on ${view.branch}\n  worktree: ${view.worktree}\n  its uncommitted work is there uncommitted, as it was; the snapshot ${view.snapshot.ref} is kept\n`,
  );
}

export async function checkpoints(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const view = await (await client(ctx)).call('GET /api/sessions/:ref/checkpoints', { params: { ref } });
  if (opts.json === true) return printJson(ctx, view);
  if (view.checkpoints.length === 0) {
    ctx.out.write(`Session ${view.session} has no checkpoints.\n`);
    return;
  }
  for (const c of view.checkpoints)
    ctx.out.write(`${c.name.padStart(4)}  ${c.createdAt}  ${c.commit.slice(0, 10)}  ${c.subject}\n`);
  ctx.out.write(
    `\`baton restore ${view.session} <checkpoint>\` writes one's files back into the worktree.\n`,
  );
}

export async function restoreCheckpoint(
  ctx: Context,
  ref: string,
  name: string,
  opts: { json?: boolean },
): Promise<void> {
  const view = await (
    await client(ctx)
  ).call('POST /api/sessions/:ref/checkpoints/:name/restore', { params: { ref, name } });
  if (opts.json === true) return printJson(ctx, view);
  ctx.out.write(
    `Restored checkpoint ${view.checkpoint.name} of ${view.session} into ${view.worktree}: its files are there, uncommitted; it sat on ${view.checkpoint.head.slice(0, 10)}.\n  The work as it was just before is checkpoint ${view.before.name}.\n`,
  );
}
