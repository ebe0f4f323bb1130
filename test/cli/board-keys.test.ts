/**
 * The terminal board's keys, pressed as a person presses them (in tmux, each key's effect awaited
 * on the screen): answering, approving, attaching, dispatching, peeking, filtering, pinning and
 * removing, against a real supervisor with scripted sessions.
 */
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { APPROVE, ASK, LONG, eachBoardTest } from '../support/board.js';

const b = eachBoardTest();

describe("the terminal board's keys", () => {
  it('shows a question the moment it is asked, and answers it with r', async () => {
    const term = b.board();
    await term.waitFor('No sessions yet');
    await b.dispatch('asker', ASK);
    await term.waitFor('asks: Which database should I use?');
    term.keys('r');
    // The question and what led to it, above the input.
    const panel = await term.waitFor((s) => s.includes('reply>') && s.includes('assistant: Looking around'));
    expect(panel).toContain('Question: Which database should I use?');
    term.type('use sqlite');
    await term.waitFor('reply> use sqlite');
    term.keys('Enter');
    await b.t.waitForEvent('asker', (e) => e.type === 'question.answered' && e.text === 'use sqlite');
    await term.waitFor('Replied to asker');
    await term.waitFor(/Ready for review \(1\)\n.*asker/);
  });

  it('approves a pending tool call with a, the call shown first', async () => {
    const term = b.board();
    await term.waitFor('● live');
    await b.dispatch('approver', APPROVE);
    await term.waitFor('waiting: approve Bash: rm -rf build');
    term.keys('a');
    const panel = await term.waitFor('Approve this call?');
    expect(panel).toContain('Approval: approve Bash: rm -rf build — clean the build');
    term.keys('Enter');
    await b.t.waitForEvent('approver', (e) => e.type === 'approval.resolved' && e.decision === 'allow');
    await term.waitFor('Approved for approver');
  });

  it('takes a and enter written together as the two keys: the call is approved', async () => {
    const term = b.board();
    await term.waitFor('● live');
    await b.dispatch('approver', APPROVE);
    await term.waitFor('waiting: approve Bash: rm -rf build');
    term.type('a\r');
    await b.t.waitForEvent('approver', (e) => e.type === 'approval.resolved' && e.decision === 'allow');
    await term.waitFor('Approved for approver');
  });

  it('denies with d and a reason, says so when nothing waits for approval, and stops with s', async () => {
    await b.dispatch('busy', LONG);
    await b.t.waitForState('busy', 'working');
    const term = b.board();
    await term.waitFor('says: Working for a long time');
    term.keys('d');
    await term.waitFor('busy is not waiting for an approval.');
    await b.dispatch('approver', APPROVE);
    await term.waitFor('waiting: approve Bash');
    // The cursor starts on the first session, and the one asking comes first.
    await term.waitFor(/› approver/);
    term.keys('d');
    await term.waitFor('reason (optional)>');
    term.type('not now');
    await term.waitFor('reason (optional)> not now');
    term.keys('Enter');
    const resolved = await b.t.waitForEvent('approver', (e) => e.type === 'approval.resolved');
    expect(resolved).toMatchObject({ decision: 'deny' });
    await term.waitFor('Denied for approver');
    // s stops the selected session: filtered down to it first.
    // The filter text follows / in the same write; the box takes all of it.
    term.type('/busy');
    await term.waitFor(/1 of 2 sessions/);
    term.keys('Enter');
    await term.waitFor('── workspace');
    term.keys('s');
    await term.waitFor(/busy is stopped; `baton respawn busy` or a reply resumes it/);
    await b.t.waitForState('busy', 'stopped');
  });

  it('attaches with enter: the live transcript, a pasted reply sent, esc back to the board', async () => {
    await b.dispatch('asker', ASK);
    await b.t.waitForState('asker', 'needs_input');
    const term = b.board();
    await term.waitFor('asks: Which database');
    term.keys('Enter');
    const attached = await term.waitFor('Attached to asker');
    await term.waitFor('question.asked');
    expect(attached).toContain('esc back to the board');
    await term.waitFor('>>> Question: Which database should I use?');
    // Pasted with its return, as one burst of input: typed and sent.
    term.type('postgres\r');
    await term.waitFor(/question\.answered\s+postgres/);
    await b.t.waitForEvent('asker', (e) => e.type === 'question.answered' && e.text === 'postgres');
    term.keys('Escape');
    await term.waitFor((s) => s.includes('● live') && s.includes('Ready for review (1)'));
  });

  it('dispatches from n: prompt, agent and name, a wrong agent named first', async () => {
    const term = b.board();
    await term.waitFor('● live');
    // n and the prompt in one write, as a quick typist (or a slow link) delivers them: the board
    // reads them as one piece, takes n as the command and the rest as the prompt. Nothing is lost.
    term.type('nwrite the release notes');
    await term.waitFor('prompt: write the release notes');
    term.keys('Tab');
    await term.waitFor('› agent');
    // The agent field starts blank (the supervisor's default, decision 185); a name it does not know is refused.
    await term.waitFor(/agent \(.*blank: the default\):\s*\n/);
    term.type('scriptedx');
    await term.waitFor(/agent \(.*\): scriptedx/);
    term.keys('Tab');
    await term.waitFor('› name');
    term.type('notes');
    await term.waitFor('name (optional): notes');
    term.keys('Enter');
    await term.waitFor('Unknown agent "scriptedx"');
    expect((await b.t.json<SessionView[]>(['ls'])).length).toBe(0);
    term.keys('Up');
    await term.waitFor('› agent');
    term.keys('BSpace');
    await term.waitFor(/agent \(.*\): scripted\n/);
    term.keys('Down');
    await term.waitFor('› name');
    term.keys('Enter');
    await term.waitFor('Dispatched notes (scripted) on baton/notes');
    const session = await b.t.waitForState('notes', 'ready_for_review');
    expect(session.prompt).toBe('write the release notes');
    await term.waitFor(/notes\s+scripted/);
  });

  it('peeks with space, filters with /, pins with p and removes with x after saying where the work is kept', async () => {
    await b.dispatch('alpha');
    await b.dispatch('beta');
    await b.t.waitForState('alpha', 'ready_for_review');
    await b.t.waitForState('beta', 'ready_for_review');
    const term = b.board();
    await term.waitFor('Ready for review (2)');
    term.keys('/');
    await term.waitFor('filter by name');
    term.type('alp');
    // Only alpha's row is left (beta may still be named in alpha's conflict badge).
    await term.waitFor((s) => s.includes('1 of 2 sessions') && !/^[ ›][ *]beta /m.test(s));
    term.keys('Enter');
    await term.waitFor('── workspace');
    term.keys('Space');
    const peek = await term.waitFor('files changed: BATON_NOTES.md');
    expect(peek).toContain('task: task alpha');
    term.keys('Space');
    await term.waitFor('── workspace');
    term.keys('p');
    await term.waitFor('Pinned (1)');
    expect((await b.t.json<{ session: SessionView }>(['peek', 'alpha'])).session.pinned).toBe(true);
    term.keys('x');
    const asked = await term.waitFor('y remove');
    expect(asked).toContain('refs/baton/snapshots/alpha');
    term.keys('y');
    await term.waitFor(/Removed alpha: uncommitted work kept in refs\/baton\/snapshots\/alpha/);
    expect(b.t.git(b.repo, 'rev-parse', '--verify', 'refs/baton/snapshots/alpha')).toMatch(/^[0-9a-f]{40}$/);
    // esc clears the filter: beta's row is back.
    term.keys('Escape');
    await term.waitFor(/^[ ›][ *]beta /m);
    term.keys('?');
    const help = await term.waitFor('keys (? or esc closes)');
    expect(help).toContain('q              quit the board; sessions go on');
  });
});
