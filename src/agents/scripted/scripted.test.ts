import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EventRecorder, waitForEvent, within } from '../../../test/support/wait.js';
import { compilePolicy, evaluate } from '../../policy/index.js';
import type { AgentEvent, AgentRun, ToolGate } from '../types.js';
import { scriptedAgent } from './index.js';

const folders: string[] = [];
const runs: AgentRun[] = [];
afterEach(async () => {
  await Promise.all(runs.splice(0).map((run) => within(run.close(), 10_000, 'scripted close')));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A git worktree (its `.git` is a file, as in every Baton session) and a state folder. */
function workspace(): { cwd: string; stateDir: string } {
  const root = mkdtempSync(join(tmpdir(), 'baton-scripted-'));
  folders.push(root);
  const repo = join(root, 'repo');
  const git = (cwd: string, ...args: string[]): void => {
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd,
      stdio: 'ignore',
    });
  };
  execFileSync('git', ['init', '--quiet', repo]);
  writeFileSync(join(repo, 'README.md'), '# test\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '--quiet', '-m', 'initial');
  git(repo, 'worktree', 'add', '--quiet', join(root, 'wt'));
  return { cwd: join(root, 'wt'), stateDir: join(root, 'state') };
}

async function start(
  steps: unknown[],
  onReply?: unknown[],
  gateFor?: (cwd: string) => ToolGate,
): Promise<{ run: AgentRun; events: EventRecorder<AgentEvent>; cwd: string }> {
  const { cwd, stateDir } = workspace();
  const events = new EventRecorder<AgentEvent>();
  const script = { steps, ...(onReply === undefined ? {} : { onReply }) };
  const run = await scriptedAgent.start(
    {
      sessionId: 's1',
      cwd,
      prompt: 'test',
      permissionMode: 'default',
      stateDir,
      options: { script },
      env: { PATH: process.env.PATH ?? '' },
      gate: gateFor?.(cwd),
    },
    events.emit,
  );
  runs.push(run);
  return { run, events, cwd };
}

const finished = (e: AgentEvent): e is Extract<AgentEvent, { type: 'tool.finished' }> =>
  e.type === 'tool.finished';
const turnCompleted = (e: AgentEvent): boolean => e.type === 'turn.completed';

describe('the scripted agent takes replies as data', () => {
  const reply = '$(touch pwned); touch pwned2 `touch pwned3` \'"';

  it.each([
    ['a shell string', { run: 'printf %s {{reply}} > seen.txt' }],
    ['a shell string in double quotes', { run: 'printf %s "{{reply}}" > seen.txt' }],
    ['a shell string in single quotes', { run: "printf %s '{{reply}}' > seen.txt" }],
    [
      'an argument array',
      { run: ['node', '-e', 'require("fs").writeFileSync("seen.txt", process.argv[1])', '{{reply}}'] },
    ],
  ])('runs no part of a reply in %s, and the command sees it literally', async (_form, step) => {
    const { run, events, cwd } = await start([{ ask: 'name?' }, step, { say: 'done' }]);
    await waitForEvent(events, (e) => e.type === 'question.asked');
    await run.reply(reply);
    await waitForEvent(events, turnCompleted);
    expect(events.events.filter(finished).map((e) => e.ok)).toEqual([true]);
    expect(readdirSync(cwd).filter((name) => name.startsWith('pwned'))).toEqual([]);
    expect(readFileSync(join(cwd, 'seen.txt'), 'utf8')).toBe(reply);
  });

  it('shows an approved shell command as it will run, with the reply as a variable', async () => {
    const { run, events, cwd } = await start(
      [{ say: 'first' }],
      [{ approve: { tool: 'Bash', input: 'echo {{reply}} > seen.txt' } }],
    );
    await waitForEvent(events, turnCompleted);
    void run.reply(reply);
    const request = await waitForEvent(events, (e) => e.type === 'approval.requested');
    expect(request).toMatchObject({ input: 'echo "${BATON_REPLY}" > seen.txt' });
    await run.resolveApproval((request as { requestId: string }).requestId, { decision: 'allow' });
    await waitForEvent(events, turnCompleted, 10_000, events.events.indexOf(request));
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
    expect(readFileSync(join(cwd, 'seen.txt'), 'utf8')).toBe(`${reply}\n`);
  });
});

describe("the scripted agent's file tools fail cleanly", () => {
  it.each([['.git/x'], ['.git'], ['README.md/inside']])(
    'fails a write to %s as a tool result and goes on',
    async (path) => {
      const { events, cwd } = await start([
        { write: { path, content: 'x' } },
        { edit: { path, old: 'a', new: 'b' } },
        { say: 'still here' },
      ]);
      const completed = await waitForEvent(events, turnCompleted);
      expect(completed).toMatchObject({ outcome: 'success' });
      const results = events.events.filter(finished);
      expect(results.map((e) => e.ok)).toEqual([false, false]);
      for (const result of results)
        expect(result.output).toMatch(
          path.startsWith('.git')
            ? /refused: .* is inside \.git/
            : /README\.md\/inside: E(NOTDIR|EXIST)|no such file/,
        );
      expect(events.events).toContainEqual({ type: 'message.added', role: 'assistant', text: 'still here' });
      expect(events.events.filter((e) => e.type === 'error.raised')).toEqual([]);
      expect(readFileSync(join(cwd, '.git'), 'utf8')).toMatch(/^gitdir: /);
    },
  );
});

describe("the scripted agent's require step", () => {
  it('ends the turn in error when the command exits non-zero, and goes on when it passes', async () => {
    const failing = await start([{ require: 'test -e missing.txt' }, { say: 'never said' }]);
    const failed = await waitForEvent(failing.events, turnCompleted);
    expect(failed).toMatchObject({
      type: 'turn.completed',
      outcome: 'error',
      error: expect.stringMatching(/required command failed \(exit 1\): test -e missing.txt/),
    });
    expect(failing.events.events.some((e) => e.type === 'message.added' && e.text === 'never said')).toBe(
      false,
    );

    const passing = await start([{ require: ['git', 'status', '--short'] }, { say: 'passed' }]);
    expect(await waitForEvent(passing.events, turnCompleted)).toMatchObject({ outcome: 'success' });
    expect(passing.events.events.some((e) => e.type === 'message.added' && e.text === 'passed')).toBe(true);
  });
});

describe("the scripted agent's argument-list commands go through the gate", () => {
  it('blocks `rm -rf <home>` given as an argument list, and runs `rm -rf build`', async () => {
    const home = mkdtempSync(join(tmpdir(), 'baton-home-'));
    folders.push(home);
    writeFileSync(join(home, 'keep.txt'), 'precious\n');
    const gate =
      (cwd: string): ToolGate =>
      (call) =>
        evaluate(
          call,
          { cwd, worktree: cwd, home, writable: [], baseBranch: 'main', branch: 'baton/s1' },
          compilePolicy(),
        );
    const steps = [
      { run: ['mkdir', '-p', 'build/out'] },
      { run: ['rm', '-rf', home] },
      { run: ['rm', '-rf', 'build'] },
      { say: 'done' },
    ];
    const { events, cwd } = await start(steps, undefined, gate);
    expect(await waitForEvent(events, turnCompleted)).toMatchObject({ outcome: 'success' });
    const blocked = events.events.filter((e) => e.type === 'tool.blocked');
    expect(blocked).toEqual([
      expect.objectContaining({ tool: 'Bash', rule: 'recursive-delete', input: `rm -rf ${home}` }),
    ]);
    expect(events.events.filter((e) => e.type === 'approval.requested')).toEqual([]);
    expect(readFileSync(join(home, 'keep.txt'), 'utf8')).toBe('precious\n');
    expect(events.events.filter(finished).map((e) => e.ok)).toEqual([true, true]);
    expect(existsSync(join(cwd, 'build'))).toBe(false);
  });

  it('asks before an argument list the gate asks about, shown as its command line, and runs it once allowed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'baton-home-'));
    folders.push(home);
    const target = join(home, 'two words.txt');
    const gate =
      (cwd: string): ToolGate =>
      (call) =>
        evaluate(
          call,
          { cwd, worktree: cwd, home, writable: [], baseBranch: 'main', branch: 'baton/s1' },
          compilePolicy(),
        );
    const { run, events } = await start([{ run: ['touch', target] }, { say: 'done' }], undefined, gate);
    const request = await waitForEvent(events, (e) => e.type === 'approval.requested');
    expect(request).toMatchObject({ tool: 'Bash', input: `touch '${target}'`, gate: 'write-outside' });
    expect(existsSync(target)).toBe(false);
    await run.resolveApproval((request as { requestId: string }).requestId, { decision: 'allow' });
    expect(await waitForEvent(events, turnCompleted)).toMatchObject({ outcome: 'success' });
    expect(existsSync(target)).toBe(true);
  });

  it('judges a required command too: a blocked or asked one never runs and ends the turn saying why', async () => {
    const home = mkdtempSync(join(tmpdir(), 'baton-home-'));
    folders.push(home);
    writeFileSync(join(home, 'keep.txt'), 'precious\n');
    const gate =
      (cwd: string): ToolGate =>
      (call) =>
        evaluate(
          call,
          { cwd, worktree: cwd, home, writable: [], baseBranch: 'main', branch: 'baton/s1' },
          compilePolicy(),
        );
    const blocked = await start([{ require: ['rm', '-rf', home] }, { say: 'never said' }], undefined, gate);
    expect(await waitForEvent(blocked.events, turnCompleted)).toMatchObject({
      outcome: 'error',
      error: expect.stringMatching(
        /^required command not run: Baton's safety gate blocked this call \(rule recursive-delete\)/,
      ),
    });
    expect(blocked.events.events.filter((e) => e.type === 'tool.blocked')).toEqual([
      expect.objectContaining({ rule: 'recursive-delete', input: `rm -rf ${home}` }),
    ]);
    expect(readFileSync(join(home, 'keep.txt'), 'utf8')).toBe('precious\n');
    const target = join(home, 'made.txt');
    const asked = await start([{ require: `touch ${target}` }], undefined, gate);
    expect(await waitForEvent(asked.events, turnCompleted)).toMatchObject({
      outcome: 'error',
      error: expect.stringMatching(/^required command not run: Baton's gate \(write-outside\)/),
    });
    expect(existsSync(target)).toBe(false);
    const allowed = await start([{ require: ['rm', '-rf', 'build'] }, { say: 'passed' }], undefined, gate);
    expect(await waitForEvent(allowed.events, turnCompleted)).toMatchObject({ outcome: 'success' });
  });

  it('judges the words, not their joined text: a quoted argument is one word to the gate as to the program', async () => {
    const gate =
      (cwd: string): ToolGate =>
      (call) =>
        evaluate(
          call,
          {
            cwd,
            worktree: cwd,
            home: '/nonexistent-home',
            writable: [],
            baseBranch: 'main',
            branch: 'baton/s1',
          },
          compilePolicy(),
        );
    const { events, cwd } = await start(
      [{ run: ['sh', '-c', 'echo $0 > seen.txt', 'a; rm -rf /'] }],
      undefined,
      gate,
    );
    expect(await waitForEvent(events, turnCompleted)).toMatchObject({ outcome: 'success' });
    expect(events.events.filter((e) => e.type === 'tool.blocked')).toEqual([]);
    expect(events.events.find((e) => e.type === 'tool.started')).toMatchObject({
      input: `sh -c 'echo $0 > seen.txt' 'a; rm -rf /'`,
    });
    expect(readFileSync(join(cwd, 'seen.txt'), 'utf8')).toBe('a; rm -rf /\n');
  });
});
