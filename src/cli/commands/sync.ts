/** `baton sync`: each session's last push to the shared remote, a push now, and a session's work restored from the remote. */
import { resolve } from 'node:path';
import type { RestoreView, SyncStatusView } from '../../api/sync.js';
import { EXIT_CODES, InvalidInputError } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';
import { age } from '../render.js';

/** Exit status of `--now` whose push failed (as `baton merge`'s when nothing landed). */
const EXIT_NOT_PUSHED = EXIT_CODES.notDone.code;

export async function status(
  ctx: Context,
  ref: string | undefined,
  opts: { json?: boolean; now?: boolean; force?: boolean },
): Promise<void> {
  const api = await client(ctx);
  if (opts.now === true || opts.force === true) {
    if (ref === undefined)
      throw new InvalidInputError('--now pushes one session: give it (`baton sync <session> --now`).');
    const pushed = await api.call('POST /api/sync/:ref/push', {
      params: { ref },
      body: opts.force === true ? { force: true } : {},
    });
    if (pushed.failure !== null) process.exitCode = EXIT_NOT_PUSHED;
    if (opts.json) return printJson(ctx, pushed);
    ctx.out.write(renderStatus([pushed]));
    return;
  }
  const { sessions } = await api.call('GET /api/sync', { query: ref === undefined ? {} : { session: ref } });
  if (opts.json) return printJson(ctx, sessions);
  if (sessions.length === 0)
    return void ctx.out.write(
      'No session is pushed to a remote. Set "sync": {"push": "turn"} in a repository\'s .baton/config.json, or push one now: baton sync <session> --now\n',
    );
  ctx.out.write(renderStatus(sessions));
}

export async function restore(
  ctx: Context,
  session: string,
  opts: { json?: boolean; path?: string; remote?: string },
): Promise<void> {
  const api = await client(ctx);
  const body = {
    cwd: ctx.cwd,
    session,
    ...(opts.path === undefined ? {} : { path: resolve(ctx.cwd, opts.path) }),
    ...(opts.remote === undefined ? {} : { remote: opts.remote }),
  };
  const restored = await api.call('POST /api/sync/restore', { body });
  if (opts.json) return printJson(ctx, restored);
  ctx.out.write(renderRestore(restored));
}

export function renderStatus(sessions: SyncStatusView[], now = Date.now()): string {
  return sessions
    .map((s) => {
      const head = `${s.name}  ${s.remote} ${s.ref.replace(/^refs\/heads\//, '')}${s.push === 'turn' ? '' : '  (pushed on request only)'}${s.pushing ? '  pushing…' : ''}`;
      const pushed =
        s.commit === null
          ? '  not pushed yet'
          : `  pushed ${s.commit.slice(0, 10)}${s.snapshotCommit === null ? ', no uncommitted work' : ` + uncommitted work ${s.snapshotCommit.slice(0, 10)} (${s.snapshotRef ?? ''})`} ${s.pushedAt === null ? '' : `${age(s.pushedAt, now)} ago`}${s.ms === null ? '' : ` in ${s.ms} ms`}`;
      const failed =
        s.failure === null
          ? ''
          : `\n  failed ${age(s.failure.at, now)} ago (${s.failures} in a row): ${s.failure.reason}${s.nextTryAt === null ? '' : `\n  next try at the first turn end after ${s.nextTryAt}`}`;
      return `${head}\n${pushed}${failed}\n`;
    })
    .join('');
}

function renderRestore(r: RestoreView): string {
  const work =
    r.snapshotCommit === null
      ? 'no uncommitted work was pushed'
      : `${r.uncommittedFiles.length} uncommitted file${r.uncommittedFiles.length === 1 ? '' : 's'} laid over it: ${r.uncommittedFiles.join(', ')}`;
  return `Restored ${r.branch} at ${r.commit.slice(0, 10)} from ${r.remote} into ${r.path}\n${work}\n`;
}
