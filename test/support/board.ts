/** The terminal board in tmux for a test: opened on the test's home, closed by pid after each test. */
import { afterEach } from 'vitest';
import { BIN, eachTest, type TestBaton } from './baton.js';
import { Terminal } from './tmux.js';

export interface BoardTest {
  t: TestBaton;
  repo: string;
  /** Opens `baton` in a fresh terminal (80×24 unless told), in the test's repository unless told. */
  board(options?: { columns?: number; rows?: number; env?: NodeJS.ProcessEnv; cwd?: string }): Terminal;
  /** Dispatches a scripted session named `name` (the default script unless `steps`); replies are noted. */
  dispatch(name: string, steps?: unknown[]): Promise<void>;
}

export function eachBoardTest(): BoardTest {
  const terminals: Terminal[] = [];
  const test = {} as BoardTest;
  eachTest((baton, dir) => {
    test.t = baton;
    test.repo = dir;
  });
  afterEach(() => {
    for (const terminal of terminals.splice(0)) terminal.close();
  });
  test.board = (options = {}) => {
    const terminal = new Terminal(test.t.root, `b${terminals.length}`, [process.execPath, BIN], {
      cwd: options.cwd ?? test.repo,
      env: { ...test.t.env, ...options.env },
      ...(options.columns === undefined ? {} : { columns: options.columns }),
      ...(options.rows === undefined ? {} : { rows: options.rows }),
    });
    terminals.push(terminal);
    return terminal;
  };
  test.dispatch = async (name, steps) => {
    const script =
      steps === undefined
        ? []
        : ['--script', test.t.script(steps, { onReply: [{ say: 'Noted: {{reply}}' }] })];
    await test.t.ok(['dispatch', `task ${name}`, '--name', name, '--agent', 'scripted', ...script], {
      cwd: test.repo,
    });
  };
  return test;
}

export const ASK = [{ say: 'Looking around' }, { ask: 'Which database should I use?' }];
export const APPROVE = [
  { say: 'About to clean' },
  { approve: { tool: 'Bash', input: 'rm -rf build', reason: 'clean the build' } },
  { say: 'cleaned' },
];
export const LONG = [{ say: 'Working for a long time' }, { sleep: 600_000 }];
