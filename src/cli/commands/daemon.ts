/** `baton daemon status|start|stop|logs`. */
import { existsSync, readFileSync } from 'node:fs';
import { checkWorkerName, FLAG_ENV, parseStoreUrl, redact } from '../../shared/cluster-settings.js';
import { BatonError, EXIT_CODES, InvalidInputError } from '../../shared/errors.js';
import { homePaths } from '../../shared/paths.js';
import { connect, tryExisting } from '../client.js';
import { printJson, type Context } from '../context.js';
import type { DaemonStatus, MemoryHeadroom } from '../../api/daemon.js';
import { formatMb } from '../../events/format.js';
import { renderHeadroom } from '../render.js';

/** `daemon status` when no supervisor runs: the supervisor-unreachable code. */
const EXIT_NOT_RUNNING = EXIT_CODES.supervisorUnreachable.code;

export async function status(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await tryExisting(homePaths(ctx.home), ctx.cwd);
  if (api === undefined) {
    if (opts.json) printJson(ctx, { running: false, home: ctx.home });
    else ctx.out.write(`Supervisor: not running (home ${ctx.home}). Any baton command starts it.\n`);
    // Scripts test `baton daemon status` like any status command: non-zero when it is down.
    process.exitCode = EXIT_NOT_RUNNING;
    return;
  }
  const s = await api.call('GET /api/daemon');
  if (opts.json) return printJson(ctx, { running: true, ...s });
  ctx.out.write(
    [
      `Supervisor: running, pid ${s.pid}, http://127.0.0.1:${s.port}, version ${s.version}, up ${s.uptimeSeconds}s`,
      `Home:       ${s.home}`,
      `Sessions:   ${s.sessions} (${s.active} active of ${s.maxConcurrent} slots, ${s.queued} queued)`,
      ...(s.memory === undefined ? [] : memoryLines(s.memory)),
      `Sandbox:    ${sandboxLine(s.sandbox)}`,
    ].join('\n') + '\n',
  );
}

/**
 * `baton sandbox`: the sandbox the supervisor's sessions run their agents in (the supervisor's
 * own probe, since its hosts are what start agents), said plainly when there is none.
 */
export async function sandbox(ctx: Context, opts: { json?: boolean }): Promise<void> {
  const api = await connect({ home: ctx.home, cwd: ctx.cwd, env: ctx.env, autostart: true });
  const { sandbox } = await api.call('GET /api/daemon');
  if (opts.json) return printJson(ctx, sandbox);
  ctx.out.write(`Sandbox: ${sandboxLine(sandbox)}\n${sandbox.summary}.\n`);
}

/** The headroom and the footprint per agent kind it is measured against (decision 260). */
function memoryLines(memory: MemoryHeadroom): string[] {
  const headroom = renderHeadroom(memory);
  const footprints = memory.footprints.map((f) => `${f.agent} ~${formatMb(f.mb)} (${f.source})`).join(', ');
  return [
    ...(headroom === undefined ? [] : [`Memory:     ${headroom.replace(/^Memory: /, '')}`]),
    `Footprints: ${footprints}`,
  ];
}

function sandboxLine(sandbox: DaemonStatus['sandbox']): string {
  return sandbox.kind === 'none' ? `none: ${sandbox.detail}` : `${sandbox.kind} (${sandbox.detail})`;
}

export interface StartFlags {
  store?: string;
  machine?: string;
}

export async function start(ctx: Context, opts: StartFlags = {}): Promise<void> {
  // Checked here, so a wrong flag fails before a supervisor is started at all.
  if (opts.store !== undefined) parseStoreUrl(opts.store, '--store');
  if (opts.machine !== undefined) checkWorkerName(opts.machine, '--machine');
  const env = {
    ...ctx.env,
    ...(opts.store === undefined ? {} : { [FLAG_ENV.store]: opts.store }),
    ...(opts.machine === undefined ? {} : { [FLAG_ENV.machine]: opts.machine }),
  };
  const api = await connect({ home: ctx.home, cwd: ctx.cwd, env, autostart: true });
  const s = await api.call('GET /api/daemon');
  if (opts.store !== undefined || opts.machine !== undefined) {
    const view = await api.call('GET /api/workers');
    const wanted = opts.store === undefined ? undefined : redact(opts.store);
    if (
      (wanted !== undefined && view.store !== wanted) ||
      (opts.machine !== undefined && view.machine !== opts.machine)
    ) {
      throw new BatonError(
        'conflict',
        `A supervisor is already running (pid ${s.pid}) as machine ${view.machine} ${view.store === null ? 'with no store' : `on the store ${view.store}`}; run \`baton daemon stop\` first to start it with these flags.`,
        { pid: s.pid, machine: view.machine, store: view.store },
      );
    }
  }
  ctx.out.write(`Supervisor running, pid ${s.pid}, port ${s.port}.\n`);
}

export interface StopFlags {
  all?: boolean;
  /** Seconds to wait for the supervisor's process to end (default 30). */
  timeout?: string;
}

/** How long `daemon stop` waits for the process to end: a stop itself waits up to 10 s for turn records (decision 427). */
const STOP_WAIT_SECONDS = 30;
/** How long `daemon stop --all` waits, unless told, for the session hosts to end first. */
const ALL_WAIT_SECONDS = 300;

/**
 * `baton daemon stop`. A supervisor still running when the wait runs out exits 124, the code of a
 * wait that ran out (decision 454): `baton daemon stop && <what needs it gone>` must not go on.
 */
export async function stop(ctx: Context, opts: StopFlags = {}): Promise<void> {
  const waitMs = stopWait(opts.timeout);
  const paths = homePaths(ctx.home);
  const api = await tryExisting(paths, ctx.cwd);
  if (api === undefined) {
    ctx.out.write('Supervisor: not running.\n');
    return;
  }
  const s = await api.call('GET /api/daemon');
  const all = opts.all === true;
  const still = (): void => {
    ctx.out.write(
      `Supervisor (pid ${s.pid}) is still stopping: it finishes what it was writing first. \`baton daemon status\` says when it has ended.\n`,
    );
    process.exitCode = EXIT_CODES.timedOut.code;
  };
  const started = performance.now();
  if (all) {
    // Ending the hosts waits for each to go (a busy agent may take a while to close), within the
    // same wait as the supervisor's own end (decision 462): 5 min unless --timeout says otherwise,
    // and at least a second, for the request itself to arrive.
    const answerMs = opts.timeout === undefined ? ALL_WAIT_SECONDS * 1000 : Math.max(waitMs, 1000);
    try {
      await api.call('POST /api/daemon/stop', { query: { hosts: true }, timeoutMs: answerMs });
    } catch (error) {
      // No answer in time (the request went, the answer did not come): the supervisor is still
      // ending its hosts, and stops once it has. Any other failure is the error it is.
      const late =
        error instanceof BatonError &&
        error.code === 'supervisor_unreachable' &&
        error.message.includes('no answer within');
      if (!late || !isAlive(s.pid)) throw error;
      ctx.out.write(`Supervisor (pid ${s.pid}) was still ending the session hosts when the wait ran out.\n`);
      still();
      return;
    }
  } else await api.call('POST /api/daemon/stop', { query: { hosts: false } });
  // With --all and --timeout, the hosts' ending came out of the same wait.
  const left =
    all && opts.timeout !== undefined ? Math.max(0, waitMs - (performance.now() - started)) : waitMs;
  if (!(await waitUntilGone(s.pid, left))) {
    still();
    return;
  }
  ctx.out.write(
    all
      ? `Supervisor stopped (pid ${s.pid}), and every session host with it; a reply resumes a session.\n`
      : `Supervisor stopped (pid ${s.pid}). Running sessions keep going and are re-attached on the next start.\n`,
  );
}

/** `--timeout` in milliseconds: 0 (do not wait) up to an hour; unset, 30 s. */
function stopWait(text: string | undefined): number {
  if (text === undefined) return STOP_WAIT_SECONDS * 1000;
  const seconds = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > 3600)
    throw new InvalidInputError(
      `--timeout must be a number of seconds from 0 to 3600, got "${text}"; nothing was stopped.`,
    );
  return seconds * 1000;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` ended within `waitMs` (looked at once, at least). */
async function waitUntilGone(pid: number, waitMs: number): Promise<boolean> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    if (performance.now() >= deadline) return false;
    // Another process's exit has no event we can wait on from here.
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface LogsFlags {
  lines: string;
  follow?: boolean;
  json?: boolean;
}

/** The supervisor's log: readable lines (or its JSON records with --json), the last N, optionally followed. */
export async function logs(ctx: Context, opts: LogsFlags): Promise<void> {
  const n = Number(opts.lines);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidInputError(`--lines must be a whole number of lines, 1 or more, got "${opts.lines}"`);
  const path = homePaths(ctx.home).log;
  const show = (line: string): string => (opts.json === true ? line : readableLogLine(line));
  if (!existsSync(path) && opts.follow !== true) {
    ctx.out.write(`No supervisor log yet at ${path}.\n`);
    return;
  }
  let offset = 0;
  if (existsSync(path)) {
    const text = readFileSync(path, 'utf8');
    offset = Buffer.byteLength(text);
    const lines = text.split('\n').filter(Boolean);
    if (lines.length > 0) ctx.out.write(lines.slice(-n).map(show).join('\n') + '\n');
  }
  if (opts.follow !== true) return;
  ctx.keepAlive = true;
  const { followFile } = await import('../tail.js');
  await followFile(path, offset, (line) => ctx.out.write(show(line) + '\n'));
}

/** `12:04:05 warn  hosts  could not remove … worktree=/x error=…` from one JSON log record. */
export function readableLogLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { time, level, service, msg, ...rest } = record;
  const clock = typeof time === 'string' ? time.slice(11, 19) : '';
  const extra = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const text = (value: unknown): string =>
    typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return `${clock} ${text(level).padEnd(5)} ${text(service).padEnd(10)} ${text(msg)}${extra === '' ? '' : `  ${extra}`}`;
}
