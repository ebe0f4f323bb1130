/**
 * `baton doctor`: is this machine ready to run agents? What only the CLI can see (Node, git, a
 * supervisor that starts), then the supervisor's own report (src/doctor) — each line with the
 * one command that fixes it. Exits 15 when a check fails (decision 170's table).
 */
import { execFileSync } from 'node:child_process';
import type { DoctorCheck } from '../../api/doctor.js';
import { errorMessage, EXIT_CODES } from '../../shared/errors.js';
import { client } from '../connect.js';
import { printJson, type Context } from '../context.js';

/** The oldest versions Baton is built and tested for (package.json's engines; git worktree and merge-tree). */
const NODE_FLOOR = [20, 19];
const GIT_FLOOR = [2, 38];

export async function doctor(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const checks: DoctorCheck[] = [nodeCheck(process.versions.node), gitCheck(ctx)];
  try {
    const report = await (await client(ctx)).call('GET /api/doctor');
    checks.push(...report.checks);
  } catch (error) {
    checks.push({
      id: 'supervisor',
      title: 'Supervisor',
      status: 'fail',
      detail: `did not answer: ${errorMessage(error)}`,
      fix: `baton daemon logs (its log is in ${ctx.home}/supervisor.log), then baton daemon start`,
    });
  }
  if (checks.some((c) => c.status === 'fail')) process.exitCode = EXIT_CODES.checkFailed.code;
  if (opts.json === true) return printJson(ctx, { checks });
  const mark = { ok: '✓', warn: '!', fail: '✗' } as const;
  const width = Math.max(...checks.map((c) => c.title.length));
  for (const c of checks) {
    ctx.out.write(`${mark[c.status]} ${c.title.padEnd(width)}  ${c.detail}\n`);
    if (c.fix !== undefined) ctx.out.write(`  ${''.padEnd(width)}  fix: ${c.fix}\n`);
  }
  const counts = (['fail', 'warn'] as const).map(
    (s) => `${checks.filter((c) => c.status === s).length} ${s === 'fail' ? 'failed' : 'to look at'}`,
  );
  ctx.out.write(`${checks.length} checks: ${counts.join(', ')}\n`);
}

function atLeast(version: string, floor: number[]): boolean {
  const parts = version.split('.').map((p) => Number.parseInt(p, 10));
  for (let i = 0; i < floor.length; i++) {
    const have = parts[i] ?? 0;
    if (have !== floor[i]) return have > floor[i]!;
  }
  return true;
}

export function nodeCheck(version: string): DoctorCheck {
  const ok = atLeast(version, NODE_FLOOR);
  return {
    id: 'node',
    title: 'Node.js',
    status: ok ? 'ok' : 'fail',
    detail: `${version}${ok ? '' : `; Baton needs ${NODE_FLOOR.join('.')} or newer`}`,
    ...(ok ? {} : { fix: 'install Node.js 20.19 or newer (nodejs.org, or your version manager)' }),
  };
}

function gitCheck(ctx: Context): DoctorCheck {
  let version: string;
  try {
    const out = execFileSync('git', ['--version'], { cwd: ctx.cwd, env: ctx.env, encoding: 'utf8' });
    version = /(\d+\.\d+(\.\d+)?)/.exec(out)?.[1] ?? out.trim();
  } catch (error) {
    return {
      id: 'git',
      title: 'git',
      status: 'fail',
      detail: `not found: ${errorMessage(error)}`,
      fix: 'install git 2.38 or newer (your package manager)',
    };
  }
  const ok = atLeast(version, GIT_FLOOR);
  return {
    id: 'git',
    title: 'git',
    status: ok ? 'ok' : 'fail',
    detail: `${version}${ok ? '' : `; Baton needs ${GIT_FLOOR.join('.')} or newer (git worktree, merge-tree --write-tree)`}`,
    ...(ok ? {} : { fix: 'install git 2.38 or newer (your package manager)' }),
  };
}
