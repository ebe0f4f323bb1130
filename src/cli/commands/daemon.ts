/** `baton daemon status|start|stop|logs`. */
import { existsSync, readFileSync } from 'node:fs';
import { homePaths } from '../../shared/paths.js';
import { connect, tryExisting } from '../client.js';
import { printJson, type Context } from '../context.js';

export async function status(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await tryExisting(homePaths(ctx.home), ctx.cwd);
  if (api === undefined) {
    if (opts.json) printJson(ctx, { running: false, home: ctx.home });
    else ctx.out.write(`Supervisor: not running (home ${ctx.home}). Any baton command starts it.\n`);
    return;
  }
  const s = await api.call('GET /api/daemon');
  if (opts.json) return printJson(ctx, { running: true, ...s });
  ctx.out.write(
    [
      `Supervisor: running, pid ${s.pid}, http://127.0.0.1:${s.port}, version ${s.version}, up ${s.uptimeSeconds}s`,
      `Home:       ${s.home}`,
      `Sessions:   ${s.sessions} (${s.active} active of ${s.maxConcurrent} slots, ${s.queued} queued)`,
    ].join('\n') + '\n',
  );
}

export async function start(ctx: Context): Promise<void> {
  const api = await connect({ home: ctx.home, cwd: ctx.cwd, env: ctx.env, autostart: true });
  const s = await api.call('GET /api/daemon');
  ctx.out.write(`Supervisor running, pid ${s.pid}, port ${s.port}.\n`);
}

export async function stop(ctx: Context): Promise<void> {
  const paths = homePaths(ctx.home);
  const api = await tryExisting(paths, ctx.cwd);
  if (api === undefined) {
    ctx.out.write('Supervisor: not running.\n');
    return;
  }
  const s = await api.call('GET /api/daemon');
  await api.call('POST /api/daemon/stop');
  await waitUntilGone(s.pid);
  ctx.out.write(`Supervisor stopped (pid ${s.pid}). Running sessions keep going and are re-attached on the next start.\n`);
}

async function waitUntilGone(pid: number): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    // Another process's exit has no event we can wait on from here.
    await new Promise((r) => setTimeout(r, 25));
  }
}

export async function logs(ctx: Context, opts: { lines: string }): Promise<void> {
  const path = homePaths(ctx.home).log;
  if (!existsSync(path)) {
    ctx.out.write(`No supervisor log yet at ${path}.\n`);
    return;
  }
  const n = Math.max(1, Number(opts.lines) || 50);
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  ctx.out.write(lines.slice(-n).join('\n') + '\n');
}
