/**
 * `baton env`: a session's ports, variables, setup log and disk use (decision 59, "Setup runs in the
 * session's host").
 */
import type { EnvironmentView } from '../../api/environments.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

export async function env(ctx: Context, ref: string, opts: { json?: boolean }): Promise<void> {
  const view = await (await client(ctx)).call('GET /api/sessions/:ref/environment', { params: { ref } });
  if (opts.json === true) {
    printJson(ctx, view);
    return;
  }
  ctx.out.write(renderEnvironment(view));
}

export function renderEnvironment(view: EnvironmentView): string {
  const lines = [`${view.session} (${view.state}) in ${view.worktree}`];
  lines.push(
    view.ports.length === 0
      ? 'ports: none leased'
      : `ports: ${view.ports.map((p) => `${p.name}=${p.port}`).join(' ')}`,
  );
  const vars = Object.entries(view.env).filter(([k]) => !view.ports.some((p) => p.name === k));
  if (vars.length > 0) lines.push('variables:', ...vars.map(([k, v]) => `  ${k}=${v}`));
  const sources = Object.entries(view.settingSources);
  lines.push(
    sources.length === 0
      ? "agent setup: the user's own, all sources"
      : `agent setup: ${sources.map(([a, s]) => `${a} [${s.join(', ')}]`).join('; ')}`,
  );
  if (view.disk !== null)
    lines.push(`disk: ${mb(view.disk.ownedBytes)} owned, ${mb(view.disk.sharedBytes)} shared by hard link`);
  if (view.setup.log === null)
    lines.push(view.setup.steps === 0 ? 'setup: nothing to do' : 'setup: not run yet');
  else
    lines.push(
      `setup log (${view.setup.logPath}):`,
      ...view.setup.log
        .trimEnd()
        .split('\n')
        .map((l) => `  ${l}`),
    );
  return lines.join('\n') + '\n';
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
