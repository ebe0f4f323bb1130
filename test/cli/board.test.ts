/**
 * The terminal board (`baton` with no arguments), driven as a person drives it: in tmux, keys
 * sent and the screen read, against a real supervisor with scripted sessions.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { BIN, eachTest, type TestBaton } from '../support/baton.js';
import { Terminal, requireTmux } from '../support/tmux.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));
const terminals: Terminal[] = [];
afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.close();
});

function board(options: { columns?: number; rows?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Terminal {
  const terminal = new Terminal(t.root, `b${terminals.length}`, [process.execPath, BIN], {
    cwd: options.cwd ?? repo,
    env: { ...t.env, ...options.env },
    ...(options.columns === undefined ? {} : { columns: options.columns }),
    ...(options.rows === undefined ? {} : { rows: options.rows }),
  });
  terminals.push(terminal);
  return terminal;
}

/** The escape character that starts ANSI colour and attribute codes. */
const ESC = String.fromCharCode(27);

const ASK = [{ say: 'Looking around' }, { ask: 'Which database should I use?' }];
const APPROVE = [{ say: 'About to clean' }, { approve: { tool: 'Bash', input: 'rm -rf build', reason: 'clean the build' } }, { say: 'cleaned' }];
const LONG = [{ say: 'Working for a long time' }, { sleep: 600_000 }];

async function dispatch(name: string, steps?: unknown[]): Promise<void> {
  await t.ok(['dispatch', `task ${name}`, '--name', name, '--agent', 'scripted', ...(steps === undefined ? [] : ['--script', t.script(steps, { onReply: [{ say: 'Noted: {{reply}}' }] })])], { cwd: repo });
}

/** Lines of the screen, each checked to fit the terminal's width. */
function lines(screen: string): string[] {
  return screen.replace(/\n$/, '').split('\n');
}

describe('the terminal board', () => {
  it('finds tmux, or fails saying how to install it', () => {
    expect(requireTmux()).toMatch(/tmux$/);
  });

  it('shows every state grouped like the page, readable at 80×24 without colour (NO_COLOR)', async () => {
    // Three sessions at work at most, so the last one waits in the queue.
    mkdirSync(t.home, { recursive: true });
    writeFileSync(join(t.home, 'config.json'), JSON.stringify({ maxConcurrent: 3 }));
    await dispatch('failing', [{ fail: 'the tests broke' }]);
    await dispatch('finished');
    await dispatch('landed');
    await t.waitForState('failing', 'failed');
    await t.waitForState('finished', 'ready_for_review');
    await t.waitForState('landed', 'ready_for_review');
    await t.ok(['done', 'landed']);
    await dispatch('halted', LONG);
    await t.waitForState('halted', 'working');
    await t.ok(['stop', 'halted']);
    await dispatch('asker', ASK);
    await dispatch('approver', APPROVE);
    await dispatch('busy', LONG);
    await t.waitForState('asker', 'needs_input');
    await t.waitForState('approver', 'needs_input');
    await t.waitForState('busy', 'working');
    await dispatch('waiting');
    await t.waitForState('waiting', 'queued');
    await t.ok(['pin', 'finished']);

    const term = board({ env: { NO_COLOR: '1' } });
    const screen = await term.waitFor((s) => s.includes('Stopped (1)') && s.includes('● live'));
    for (const title of ['Pinned (1)', 'Needs input (2)', 'Working (1)', 'Queued (1)', 'Completed (1)', 'Failed (1)', 'Stopped (1)']) expect(screen).toContain(title);
    // The order of the page: pinned, needs input, working, ready for review, queued, completed, failed, stopped.
    const order = ['Pinned', 'Needs input', 'Working', 'Queued', 'Completed', 'Failed', 'Stopped'].map((title) => screen.indexOf(`${title} (`));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(screen).toMatch(/asker\s+scripted\s+\S+\s+asks: Which database should I use\?/);
    expect(screen).toMatch(/approver\s+scripted\s+\S+\s+waiting: approve Bash: rm -rf build/);
    expect(screen).toMatch(/\*finished\s+scripted\s+\S+\s+\[ready for review\]/);
    expect(screen).toMatch(/waiting\s+scripted\s+\S+\s+queued #1/);
    expect(screen).toContain('q quit');
    for (const line of lines(screen)) expect([...line].length).toBeLessThanOrEqual(80);
    expect(lines(screen).length).toBeLessThanOrEqual(24);
    // NO_COLOR: attributes (the cursor's inverse, bold titles) but no colour codes at all.
    const raw = term.screen({ escapes: true });
    expect(raw).toMatch(new RegExp(`${ESC}\\[[0-9;]*7m`));
    expect(raw).not.toMatch(new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;|48;)[0-9;]*m`));

    // The same list as `baton ls --json`, one row per session.
    const listed = await t.json<SessionView[]>(['ls']);
    for (const s of listed) expect(screen).toContain(s.name);
  });

  it('colours by group on a colour terminal, and redraws to a resize and a wide terminal', async () => {
    await dispatch('asker', ASK);
    await t.waitForState('asker', 'needs_input');
    const term = board({ columns: 80, rows: 24 });
    await term.waitFor('● live');
    expect(term.screen({ escapes: true })).toMatch(new RegExp(`${ESC}\\[[0-9;]*33m[^\\n]*Needs input`));
    term.resize(160, 40);
    const wide = await term.waitFor((s) => lines(s)[0]!.trimEnd().length > 100);
    expect(lines(wide)[0]).toMatch(/● live$/);
    expect(wide).toContain('x remove');
    expect(lines(wide).length).toBeGreaterThan(30);
  });

  it('shows a question the moment it is asked, and answers it with r', async () => {
    const term = board();
    await term.waitFor('No sessions yet');
    await dispatch('asker', ASK);
    await term.waitFor('asks: Which database should I use?');
    term.keys('r');
    // The question and what led to it, above the input.
    const panel = await term.waitFor((s) => s.includes('reply>') && s.includes('assistant: Looking around'));
    expect(panel).toContain('Question: Which database should I use?');
    term.type('use sqlite');
    await term.waitFor('reply> use sqlite');
    term.keys('Enter');
    await t.waitForEvent('asker', (e) => e.type === 'question.answered' && e.text === 'use sqlite');
    await term.waitFor('Replied to asker');
    await term.waitFor(/Ready for review \(1\)\n.*asker/);
  });

  it('approves a pending tool call with a, the call shown first', async () => {
    const term = board();
    await term.waitFor('● live');
    await dispatch('approver', APPROVE);
    await term.waitFor('waiting: approve Bash: rm -rf build');
    term.keys('a');
    const panel = await term.waitFor('Approve this call?');
    expect(panel).toContain('Approval: approve Bash: rm -rf build — clean the build');
    term.keys('Enter');
    await t.waitForEvent('approver', (e) => e.type === 'approval.resolved' && e.decision === 'allow');
    await term.waitFor('Approved for approver');
  });

  it('denies with d and a reason, and says so when nothing waits for approval', async () => {
    await dispatch('busy', LONG);
    await t.waitForState('busy', 'working');
    const term = board();
    await term.waitFor('says: Working for a long time');
    term.keys('d');
    await term.waitFor('busy is not waiting for an approval.');
    await dispatch('approver', APPROVE);
    await term.waitFor('waiting: approve Bash');
    // The cursor starts on the first session, and the one asking comes first.
    await term.waitFor(/› approver/);
    term.keys('d');
    await term.waitFor('reason (optional)>');
    term.type('not now');
    await term.waitFor('reason (optional)> not now');
    term.keys('Enter');
    const resolved = await t.waitForEvent('approver', (e) => e.type === 'approval.resolved');
    expect(resolved).toMatchObject({ decision: 'deny' });
  });

  it('attaches with enter: the live transcript, a pasted reply sent, esc back to the board', async () => {
    await dispatch('asker', ASK);
    await t.waitForState('asker', 'needs_input');
    const term = board();
    await term.waitFor('asks: Which database');
    term.keys('Enter');
    const attached = await term.waitFor('Attached to asker');
    await term.waitFor('question.asked');
    expect(attached).toContain('esc back to the board');
    await term.waitFor('>>> Question: Which database should I use?');
    // Pasted with its return, as one burst of input: typed and sent.
    term.type('postgres\r');
    await term.waitFor(/question\.answered\s+postgres/);
    await t.waitForEvent('asker', (e) => e.type === 'question.answered' && e.text === 'postgres');
    term.keys('Escape');
    await term.waitFor((s) => s.includes('● live') && s.includes('Ready for review (1)'));
  });

  it('dispatches from n: prompt, agent and name, a wrong agent named first', async () => {
    const term = board();
    await term.waitFor('● live');
    term.keys('n');
    await term.waitFor('› prompt:');
    term.type('write the release notes');
    await term.waitFor('prompt: write the release notes');
    term.keys('Tab');
    await term.waitFor('› agent');
    // The agent field starts at the default agent; one letter more makes it unknown.
    await term.waitFor(/agent \(.*\): scripted/);
    term.type('x');
    await term.waitFor(/agent \(.*\): scriptedx/);
    term.keys('Tab');
    await term.waitFor('› name');
    term.type('notes');
    await term.waitFor('name (optional): notes');
    term.keys('Enter');
    await term.waitFor('Unknown agent "scriptedx"');
    expect((await t.json<SessionView[]>(['ls'])).length).toBe(0);
    term.keys('Up');
    await term.waitFor('› agent');
    term.keys('BSpace');
    await term.waitFor(/agent \(.*\): scripted\n/);
    term.keys('Down');
    await term.waitFor('› name');
    term.keys('Enter');
    await term.waitFor('Dispatched notes (scripted) on baton/notes');
    const session = await t.waitForState('notes', 'ready_for_review');
    expect(session.prompt).toBe('write the release notes');
    await term.waitFor(/notes\s+scripted/);
  });

  it('peeks with space, filters with /, pins with p and removes with x after saying where the work is kept', async () => {
    await dispatch('alpha');
    await dispatch('beta');
    await t.waitForState('alpha', 'ready_for_review');
    await t.waitForState('beta', 'ready_for_review');
    const term = board();
    await term.waitFor('Ready for review (2)');
    term.keys('/');
    await term.waitFor('filter by name');
    term.type('alp');
    await term.waitFor((s) => s.includes('1 of 2 sessions') && !s.includes('beta '));
    term.keys('Enter');
    await term.waitFor('── workspace');
    term.keys('Space');
    const peek = await term.waitFor('files changed: BATON_NOTES.md');
    expect(peek).toContain('task: task alpha');
    term.keys('Space');
    await term.waitFor('── workspace');
    term.keys('p');
    await term.waitFor('Pinned (1)');
    expect((await t.json<{ session: SessionView }>(['peek', 'alpha'])).session.pinned).toBe(true);
    term.keys('x');
    const asked = await term.waitFor('y remove');
    expect(asked).toContain('refs/baton/snapshots/alpha');
    term.keys('y');
    await term.waitFor(/Removed alpha: uncommitted work kept in refs\/baton\/snapshots\/alpha/);
    expect(t.git(repo, 'rev-parse', '--verify', 'refs/baton/snapshots/alpha')).toMatch(/^[0-9a-f]{40}$/);
    term.keys('Escape');
    await term.waitFor('beta');
  });

  it('reconnects after the supervisor is killed with -9, losing and repeating nothing', async () => {
    await dispatch('busy', LONG);
    await t.waitForState('busy', 'working');
    const term = board();
    await term.waitFor('● live');
    await t.ok(['pin', 'busy']);
    await term.waitFor('session.pinned busy pinned');
    const before = t.supervisorPid();
    process.kill(before, 'SIGKILL');
    await term.waitFor((s) => s.includes('● live') && t.supervisorPid() !== before && term.written().includes('reconnecting…'));
    await t.ok(['unpin', 'busy']);
    // The workspace event and the session's new view come as two messages: wait for both.
    const screen = await term.waitFor((s) => s.includes('session.pinned busy unpinned') && /Working \(1\)\n.*busy/.test(s));
    expect(screen.split('session.pinned busy pinned').length - 1).toBe(1);
  });

  it("shows other domains' workspace events live: the radar's conflict between two sessions", async () => {
    const term = board();
    await term.waitFor('● live');
    // The default script of both writes BATON_NOTES.md: the radar finds them colliding.
    await dispatch('left');
    await dispatch('right');
    await term.waitFor(/radar\.conflict_found (left ↔ right|right ↔ left): \w+ \(BATON_NOTES\.md\)/);
  });

  it('shows the opening repository first and every repository after tab', async () => {
    const other = t.repo('other');
    await t.ok(['dispatch', 'elsewhere', '--name', 'far', '--agent', 'scripted'], { cwd: other });
    await dispatch('near');
    await t.waitForState('far', 'ready_for_review');
    await t.waitForState('near', 'ready_for_review');
    const term = board();
    const here = await term.waitFor('● live');
    expect(here).toContain('near');
    expect(here).not.toContain('far');
    term.keys('Tab');
    const all = await term.waitFor('every repository (tab: repo)');
    expect(all).toContain('repo/near');
    expect(all).toContain('other/far');
    const outside = board({ cwd: t.root });
    const everywhere = await outside.waitFor('● live');
    expect(everywhere).toContain('Baton · every repository');
    expect(everywhere).toContain('other/far');
  });

  it('quits with q, leaving the sessions running', async () => {
    await dispatch('busy', LONG);
    await t.waitForState('busy', 'working');
    const term = board();
    await term.waitFor('busy');
    term.keys('q');
    await term.waitFor(() => term.exited() && term.screen({ history: true }).includes('Left the board; sessions go on (1 running)'));
    expect((await t.json<SessionView[]>(['ls']))[0]!.state).toBe('working');
  });

  it('off a terminal, a bare `baton` prints what `baton ls` prints', async () => {
    await dispatch('plain');
    await t.waitForState('plain', 'ready_for_review');
    const bare = await t.run([], { cwd: repo });
    const ls = await t.run(['ls'], { cwd: repo });
    expect(bare.code).toBe(0);
    expect(bare.stdout.replace(/\s+\d+[smhd]\s+/g, ' AGE ')).toBe(ls.stdout.replace(/\s+\d+[smhd]\s+/g, ' AGE '));
    expect(bare.stdout).toContain('plain');
    expect(readFileSync(join(t.home, 'supervisor.json'), 'utf8')).toContain('pid');
    // And it pays nothing for the board: neither Ink and React, nor zod and commander are loaded.
    const traced = await t.run([], { cwd: repo, env: { NODE_DEBUG: 'esm,module' } });
    expect(traced.stderr).toContain('dist/cli/main.js');
    expect(traced.stderr).not.toMatch(/node_modules\/(ink|react|zod|commander)\//);
  });
});
