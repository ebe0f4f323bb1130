/**
 * The terminal board: `baton` with no arguments. On a terminal it opens the live board (Ink);
 * otherwise it prints what `baton ls` prints, so scripts that run a bare `baton` keep working.
 */
import { execFile } from 'node:child_process';
import type { Instance } from 'ink';
import { client } from '../cli/connect.js';
import type { Context } from '../cli/context.js';
import type { BoardData } from './model.js';
import { StartedFeed } from './feed.js';
import { colorsWanted } from './lines.js';

export type { BoardData } from './model.js';

/** The alternate screen: the board leaves the terminal's scrollback as it found it. */
const ENTER_SCREEN = '\x1b[?1049h\x1b[H';
const LEAVE_SCREEN = '\x1b[?1049l';

export async function openBoard(ctx: Context): Promise<void> {
  const out = ctx.out as NodeJS.WriteStream;
  if (out.isTTY !== true || process.stdin.isTTY !== true) {
    const { list } = await import('../cli/commands/sessions.js');
    return list(ctx, {});
  }
  // Ink and React take a while to load: the supervisor's snapshot is fetched meanwhile (decision 421).
  // A supervisor that cannot be reached or started fails the command here, as before the board.
  const connecting = client(ctx);
  const feed = new StartedFeed(ctx, undefined, connecting);
  let here: string | undefined;
  try {
    [, here] = await Promise.all([connecting, repositoryOf(ctx.cwd), loadScreen()]);
  } catch (error) {
    feed.stop();
    throw error;
  }
  out.write(ENTER_SCREEN);
  let board: BoardData | undefined;
  const instance = await renderBoard({
    ctx,
    stdin: process.stdin,
    stdout: out,
    here,
    color: colorsWanted(ctx.env, out),
    onFrame: (b) => (board = b),
    feed,
  });
  try {
    await instance.waitUntilExit();
  } finally {
    instance.cleanup();
    out.write(LEAVE_SCREEN);
  }
  const live = board === undefined ? 0 : [...board.sessions.values()].filter((s) => s.running).length;
  out.write(
    `Left the board; sessions go on${live > 0 ? ` (${live} running)` : ''}. \`baton\` opens it again.\n`,
  );
}

export interface RenderOptions {
  ctx: Context;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  here: string | undefined;
  color: boolean;
  onFrame?: (board: BoardData) => void;
  /** The feed already started; else one starts here, before Ink and React load. */
  feed?: StartedFeed;
}

/** Ink, React and the board's screen: most of what `baton` loads before its first frame (bench/board.mjs times it alone). */
export function loadScreen() {
  return Promise.all([import('ink'), import('react'), import('./App.js')]);
}

/** Renders the board on the given streams (the terminal, or a bench's stand-ins). */
export async function renderBoard(options: RenderOptions): Promise<Instance> {
  const feed = options.feed ?? new StartedFeed(options.ctx);
  const [{ render }, { createElement }, { App }] = await loadScreen();
  return render(
    createElement(App, {
      ctx: options.ctx,
      here: options.here,
      color: options.color,
      feed,
      ...(options.onFrame === undefined ? {} : { onFrame: options.onFrame }),
    }),
    {
      stdin: options.stdin,
      stdout: options.stdout,
      stderr: options.stdout,
      exitOnCtrlC: true,
      patchConsole: false,
    },
  );
}

/** The repository holding `cwd` (its main checkout's root, as sessions name it), or undefined outside one. */
function repositoryOf(cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['rev-parse', '--path-format=absolute', '--git-common-dir'],
      { cwd, encoding: 'utf8' },
      (error, stdout) => {
        resolve(error === null ? stdout.trim().replace(/\/\.git$/, '') : undefined);
      },
    );
  });
}
