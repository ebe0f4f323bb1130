/**
 * The terminal board (`baton` with no arguments), driven as a person drives it: in tmux, keys
 * sent and the screen read, against a real supervisor with scripted sessions. What it shows, how
 * it fits the terminal, and how it lives with the supervisor; its keys are in board-keys.test.ts.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { APPROVE, ASK, LONG, eachBoardTest } from '../support/board.js';
import { requireTmux } from '../support/tmux.js';
import { until } from '../support/wait.js';

const b = eachBoardTest();

/** The escape character that starts ANSI colour and attribute codes. */
const ESC = String.fromCharCode(27);

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
    mkdirSync(b.t.home, { recursive: true });
    writeFileSync(join(b.t.home, 'config.json'), JSON.stringify({ maxConcurrent: 3 }));
    await b.dispatch('failing', [{ fail: 'the tests broke' }]);
    await b.dispatch('finished');
    await b.dispatch('landed');
    await b.t.waitForState('failing', 'failed');
    await b.t.waitForState('finished', 'ready_for_review');
    await b.t.waitForState('landed', 'ready_for_review');
    await b.t.ok(['done', 'landed']);
    await b.dispatch('halted', LONG);
    await b.t.waitForState('halted', 'working');
    await b.t.ok(['stop', 'halted']);
    await b.dispatch('asker', ASK);
    await b.dispatch('approver', APPROVE);
    await b.dispatch('busy', LONG);
    await b.t.waitForState('asker', 'needs_input');
    await b.t.waitForState('approver', 'needs_input');
    await b.t.waitForState('busy', 'working');
    await b.dispatch('waiting');
    await b.t.waitForState('waiting', 'queued');
    await b.t.ok(['pin', 'finished']);

    const term = b.board({ env: { NO_COLOR: '1' } });
    const screen = await term.waitFor((s) => s.includes('Stopped (1)') && s.includes('● live'));
    for (const title of [
      'Pinned (1)',
      'Needs input (2)',
      'Working (1)',
      'Queued (1)',
      'Completed (1)',
      'Failed (1)',
      'Stopped (1)',
    ])
      expect(screen).toContain(title);
    // The order of the page: pinned, needs input, working, ready for review, queued, completed, failed, stopped.
    const order = ['Pinned', 'Needs input', 'Working', 'Queued', 'Completed', 'Failed', 'Stopped'].map(
      (title) => screen.indexOf(`${title} (`),
    );
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(screen).toMatch(/asker\s+scripted\s+\S+\s+asks: Which database should I use\?/);
    expect(screen).toMatch(/approver\s+scripted\s+\S+\s+waiting: approve Bash: rm -rf build/);
    // Both default scripts write BATON_NOTES.md: the radar may have marked the pair hot by now, rightly.
    expect(screen).toMatch(/\*finished\s+scripted\s+\S+\s+(?:⚠ hot: landed · )?\[ready for review\]/);
    expect(screen).toMatch(/waiting\s+scripted\s+\S+\s+queued #1/);
    expect(screen).toContain('q quit');
    for (const line of lines(screen)) expect([...line].length).toBeLessThanOrEqual(80);
    expect(lines(screen).length).toBeLessThanOrEqual(24);
    // NO_COLOR: attributes (the cursor's inverse, bold titles) but no colour codes at all.
    const raw = term.screen({ escapes: true });
    expect(raw).toMatch(new RegExp(`${ESC}\\[[0-9;]*7m`));
    expect(raw).not.toMatch(
      new RegExp(`${ESC}\\[(?:[0-9;]*;)?(?:3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;|48;)[0-9;]*m`),
    );

    // The same list as `baton ls --json`, one row per session.
    const listed = await b.t.json<SessionView[]>(['ls']);
    for (const s of listed) expect(screen).toContain(s.name);
  });

  it('colours by group on a colour terminal, and redraws to a resize and a wide terminal', async () => {
    await b.dispatch('asker', ASK);
    await b.t.waitForState('asker', 'needs_input');
    const term = b.board({ columns: 80, rows: 24 });
    await term.waitFor('● live');
    expect(term.screen({ escapes: true })).toMatch(new RegExp(`${ESC}\\[[0-9;]*33m[^\\n]*Needs input`));
    term.resize(160, 40);
    const wide = await term.waitFor((s) => lines(s)[0]!.trimEnd().length > 100);
    expect(lines(wide)[0]).toMatch(/● live$/);
    expect(wide).toContain('x remove');
    expect(lines(wide).length).toBeGreaterThan(30);
  });

  it('rings the bell and sends a terminal notification (OSC 9, OSC 777) when a session comes to need you, with the count in the title', async () => {
    const term = b.board();
    await term.waitFor('● live');
    await b.dispatch('asker', ASK);
    await term.waitFor((s) => s.includes('asker') && term.written().includes(']777;notify;'));
    const written = term.written();
    expect(written).toContain(`${ESC}]2;Baton — 1 needs you\u0007`);
    expect(written).toContain(`\u0007${ESC}]9;asker needs input: Which database should I use?\u0007`);
    expect(written).toContain(`${ESC}]777;notify;asker needs input;Which database should I use?\u0007`);
    // tmux took the title: the window says how many wait.
    expect(term.paneTitle()).toBe('Baton — 1 needs you');
    await b.t.ok(['reply', 'asker', 'postgres']);
    await term.waitFor(() => term.paneTitle() === 'Baton');
    // One notification for one wait.
    expect(term.written().split(']9;asker needs input').length - 1).toBe(1);
  });

  it('reconnects after the supervisor is killed with -9, losing and repeating nothing', async () => {
    await b.dispatch('busy', LONG);
    await b.t.waitForState('busy', 'working');
    const term = b.board();
    await term.waitFor('● live');
    await b.t.ok(['pin', 'busy']);
    await term.waitFor('session.pinned busy pinned');
    const before = b.t.supervisorPid();
    process.kill(before, 'SIGKILL');
    await term.waitFor(
      (s) =>
        s.includes('● live') && b.t.supervisorPid() !== before && term.written().includes('reconnecting…'),
    );
    await b.t.ok(['unpin', 'busy']);
    // The workspace event and the session's new view come as two messages: wait for both.
    const screen = await term.waitFor(
      (s) => s.includes('session.pinned busy unpinned') && /Working \(1\)\n.*busy/.test(s),
    );
    expect(screen.split('session.pinned busy pinned').length - 1).toBe(1);
  });

  it("shows other domains' workspace events live: the radar's conflict in the feed and on both rows", async () => {
    const term = b.board();
    await term.waitFor('● live');
    // The default script of both writes BATON_NOTES.md: the radar finds them colliding.
    await b.dispatch('left');
    await b.dispatch('right');
    await term.waitFor(/radar\.conflict_found (left ↔ right|right ↔ left): \w+ \(BATON_NOTES\.md\)/);
    // And each row carries the radar's badge, as the page's cards do.
    const rows = await term.waitFor(
      (s) => /left .*⚠ (hot|soft): right/.test(s) && /right .*⚠ (hot|soft): left/.test(s),
    );
    expect(rows).toMatch(/⚠ (hot|soft): right · turn finished/);
  });

  it('shows the opening repository first and every repository after tab', async () => {
    const other = b.t.repo('other');
    await b.t.ok(['dispatch', 'elsewhere', '--name', 'far', '--agent', 'scripted'], { cwd: other });
    await b.dispatch('near');
    await b.t.waitForState('far', 'ready_for_review');
    await b.t.waitForState('near', 'ready_for_review');
    const term = b.board();
    const here = await term.waitFor('● live');
    expect(here).toContain('near');
    expect(here).not.toContain('far');
    term.keys('Tab');
    const all = await term.waitFor('every repository (tab: repo)');
    expect(all).toContain('repo/near');
    expect(all).toContain('other/far');
    const outside = b.board({ cwd: b.t.root });
    const everywhere = await outside.waitFor('● live');
    expect(everywhere).toContain('Baton · every repository');
    expect(everywhere).toContain('other/far');
  });

  it('quits with q, leaving the sessions running', async () => {
    await b.dispatch('busy', LONG);
    await b.t.waitForState('busy', 'working');
    const term = b.board();
    await term.waitFor('busy');
    term.keys('q');
    await term.waitFor(
      () =>
        term.exited() &&
        term.screen({ history: true }).includes('Left the board; sessions go on (1 running)'),
    );
    expect((await b.t.json<SessionView[]>(['ls']))[0]!.state).toBe('working');
  });

  it('off a terminal, a bare `baton` prints what `baton ls` prints', async () => {
    await b.dispatch('plain');
    await b.t.waitForState('plain', 'ready_for_review');
    // The review queue's sizes are measured after the session is ready, never waited on (decision
    // 57): both commands are read once they are, or the first could say "not measured yet".
    await until(
      async () => !(await b.t.run(['ls'], { cwd: b.repo })).stdout.includes('not measured yet'),
      'the review queue measured',
    );
    const bare = await b.t.run([], { cwd: b.repo });
    const ls = await b.t.run(['ls'], { cwd: b.repo });
    expect(bare.code).toBe(0);
    // Ages and the machine's free memory move between the two commands.
    const same = (out: string): string =>
      out.replace(/\s+\d+[smhd]\s+/g, ' AGE ').replace(/\d+(\.\d+)? [GM]B/g, 'N GB');
    expect(same(bare.stdout)).toBe(same(ls.stdout));
    expect(bare.stdout).toContain('plain');
    expect(readFileSync(join(b.t.home, 'supervisor.json'), 'utf8')).toContain('pid');
    // And it pays nothing for the board: neither Ink and React, nor zod and commander are loaded.
    const traced = await b.t.run([], { cwd: b.repo, env: { NODE_DEBUG: 'esm,module' } });
    expect(traced.stderr).toMatch(/dist\/(cli\/main|cli-bundle\/cli)\.js/);
    expect(traced.stderr).not.toMatch(/node_modules\/(ink|react|zod|commander)\//);
    // The bundled CLI (decision 311) holds them in chunks of its own: none of those is loaded either.
    const loaded = [
      ...new Set(traced.stderr.match(/(?<=Storing file:\/\/)\S+\/dist\/cli-bundle\/\S+\.js/g) ?? []),
    ];
    for (const file of loaded)
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/react\.transitional\.element|ZodError/);
  });
});
