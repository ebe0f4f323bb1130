/**
 * The terminal board: `baton` with no arguments. On a terminal it opens the live board (Ink);
 * otherwise it prints what `baton ls` prints, so scripts that run a bare `baton` keep working.
 */
import { execFile } from 'node:child_process';
import type { Instance } from 'ink';
import { client } from '../cli/connect.js';
import type { Context } from '../cli/context.js';
import type { BoardData } from './model.js';
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
  // Ink and React take a few hundred milliseconds to load: the supervisor is reached meanwhile.
  const [, here] = await Promise.all([client(ctx), repositoryOf(ctx.cwd), import('ink'), import('react')]);
  out.write(ENTER_SCREEN);
  let board: BoardData | undefined;
  const instance = await renderBoard({
    ctx,
    stdin: process.stdin,
    stdout: out,
    here,
    color: colorsWanted(ctx.env, out),
    onFrame: (b) => (board = b),
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
}

/** Renders the board on the given streams (the terminal, or a bench's stand-ins). */
export async function renderBoard(options: RenderOptions): Promise<Instance> {
  const [{ render }, { createElement }, { App }] = await Promise.all([
    import('ink'),
    import('react'),
    import('./App.js'),
  ]);
  return render(
    createElement(App, {
      ctx: options.ctx,
      here: options.here,
      color: options.color,
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
