/**
 * A prompt-injected agent's text reaches the user's terminal: a task it records through Baton's
 * MCP endpoints, with its session's own credential, is listed by `baton task ls`. Escape
 * sequences in it are shown as text, not obeyed: the window's title and the clipboard (OSC 2,
 * OSC 52) stay the user's (decision 400).
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialPath } from '../../src/mcp/credentials.js';
import { BIN, eachTest, type TestBaton } from '../support/baton.js';
import { callApi } from '../support/http.js';
import { Terminal } from '../support/tmux.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
});

const TITLE = 'Migrate\x1b]2;PWNED-BY-AGENT\x07 the callers\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J';

describe("an agent's text on the user's terminal", () => {
  it('shows the escape sequences of a task an agent recorded as text, not as commands to the terminal', async () => {
    const script = t.script([{ sleep: 600_000 }]);
    await t.ok(['dispatch', 'work', '--name', 'alpha', '--script', script], { cwd: repo });
    const alpha = await t.waitForState('alpha', 'working');
    const credential = readFileSync(credentialPath(t.home, alpha.id), 'utf8').trim();
    const recorded = await callApi(t.home, 'POST', '/api/mcp/tasks', { title: TITLE }, credential);
    expect(recorded.status).toBe(201);

    term = new Terminal(t.root, 'tasks', [process.execPath, BIN, 'task', 'ls'], {
      cwd: repo,
      env: { ...t.env, FORCE_COLOR: '1' },
      columns: 200,
    });
    await term.waitFor('the callers');
    await term.waitFor(() => term?.exited() === true);
    const written = term.written();
    // Shown, as caret text: the user sees what the agent wrote.
    expect(term.screen()).toContain('Migrate^[]2;PWNED-BY-AGENT');
    expect(term.screen()).toContain('^[]52;c;cm0gLXJmIH4K');
    // Not obeyed: no operating-system command and no screen clearing reached the terminal.
    expect(written).not.toContain('\x1b]');
    expect(written).not.toContain('\x1b[2J');
    expect(term.paneTitle()).not.toContain('PWNED');

    // A pipe gets the text exactly as recorded: it is data, and JSON escapes it.
    const listed = await t.json<{ columns: { tasks: { title: string }[] }[] }>(['task', 'ls'], { cwd: repo });
    expect(listed.columns.flatMap((c) => c.tasks.map((x) => x.title))).toContain(TITLE);
  });

  it("draws an agent's question on the terminal board as text: the title and the screen stay the user's", async () => {
    const question = 'Keep\x1b]2;PWNED-BY-AGENT\x07 the old callers?\x1b[2J';
    const script = t.script([{ ask: question }]);
    await t.ok(['dispatch', 'work', '--name', 'asker', '--script', script], { cwd: repo });
    await t.waitForState('asker', 'needs_input');

    term = new Terminal(t.root, 'board', [process.execPath, BIN], {
      cwd: repo,
      env: { ...t.env, FORCE_COLOR: '1' },
      columns: 200,
    });
    await term.waitFor('the old callers?');
    expect(term.screen()).toContain('Keep^[]2;PWNED-BY-AGENT^G the old callers?^[[2J');
    // The only operating-system command written is the board's own title; the agent's clearing
    // of the screen never reaches the terminal.
    const written = term.written();
    // eslint-disable-next-line no-control-regex
    expect((written.match(/\x1b\][^\x07]*/g) ?? []).every((osc) => osc.startsWith('\x1b]2;Baton'))).toBe(
      true,
    );
    expect(written).not.toContain('callers?\x1b[2J');
    expect(term.paneTitle()).not.toContain('PWNED');
  });
});
