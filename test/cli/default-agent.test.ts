/**
 * The agent a dispatch runs when it names none (decision 185): the configured one, else the one
 * installed on PATH — never the scripted agent by itself — and a clear refusal naming the fix when
 * there is none, several, or one that cannot reach its vendor. PATH here holds only node, git and
 * the stub agents each test puts there: a stub is an executable named `claude` or `codex`, enough
 * to be found; the sessions that run one fail, which is not what these tests look at.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import { BIN, TestBaton } from '../support/baton.js';
import { Terminal } from '../support/tmux.js';

let t: TestBaton | undefined;
let term: Terminal | undefined;
afterEach(() => {
  term?.close();
  term = undefined;
  t?.cleanup();
});

const gitDir = dirname(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim());

/** A Baton whose PATH has node, git and stub agents named `agents`, and no agent configured. */
function batonWith(agents: string[], env: NodeJS.ProcessEnv = {}): { t: TestBaton; repo: string } {
  const baton = new TestBaton({ BATON_AGENT: '', ...env });
  const stubs = join(baton.root, 'stub-bin');
  mkdirSync(stubs);
  for (const agent of agents) {
    writeFileSync(join(stubs, agent), '#!/bin/sh\nexit 0\n');
    chmodSync(join(stubs, agent), 0o755);
  }
  baton.env.PATH = [stubs, dirname(process.execPath), gitDir].join(':');
  return { t: baton, repo: baton.repo() };
}

async function sessions(baton: TestBaton, repo: string): Promise<SessionView[]> {
  return baton.json<SessionView[]>(['ls'], { cwd: repo });
}

describe('the agent a dispatch runs when it names none', () => {
  it('refuses with the fix when no agent is installed, rather than running the scripted one', async () => {
    const made = batonWith([]);
    t = made.t;
    const run = await t.run(['dispatch', 'fix the bug'], { cwd: made.repo });
    expect(run.code, run.stdout).not.toBe(0);
    expect(run.stderr).toMatch(/No agent is set up: neither claude nor codex is on PATH/);
    expect(run.stderr).toContain('npm install -g @anthropic-ai/claude-code');
    expect(run.stderr).toContain('baton config set agent');
    expect(run.stderr).toContain('--agent scripted');
    expect(await sessions(t, made.repo)).toEqual([]);
    // Several at once (best-of, fan-out) the same: no scripted sessions nobody asked for.
    writeFileSync(join(t.root, 'items.txt'), 'a\nb\n');
    await t.ok(['task', 'add', 'fix the bug'], { cwd: made.repo });
    for (const many of [
      ['dispatch', 'fix the bug', '--best-of', '2'],
      ['fanout', join(t.root, 'items.txt'), '--prompt', 'fix each'],
      ['task', 'start', '1'],
    ]) {
      const refused = await t.run(many, { cwd: made.repo });
      expect(refused.code, many.join(' ')).not.toBe(0);
      expect(refused.stderr).toMatch(/No agent is chosen and none is installed.*baton config set agent/);
    }
    // The page's start form sends no agent: the supervisor chooses as for a dispatch, and refuses alike.
    await expect(
      t.client().call('POST /api/tasks/:id/start', { params: { id: '1' }, body: {} }),
    ).rejects.toThrow(/No agent is set up/);
    expect(await sessions(t, made.repo)).toEqual([]);
    // The way out it names works.
    const scripted = await t.run(['dispatch', 'fix the bug', '--agent', 'scripted'], { cwd: made.repo });
    expect(scripted.code, scripted.stderr).toBe(0);
    expect((await sessions(t, made.repo)).map((s) => s.agent)).toEqual(['scripted']);
  });

  it('refuses an installed agent that is not signed in, naming how to sign in', async () => {
    const made = batonWith(['claude']);
    t = made.t;
    const run = await t.run(['dispatch', 'fix the bug'], { cwd: made.repo });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/claude, the only agent found on PATH, but it is not signed in/);
    expect(run.stderr).toMatch(/\/login|ANTHROPIC_API_KEY/);
    expect(await sessions(t, made.repo)).toEqual([]);
  });

  it('runs the one agent installed and signed in, and says so', async () => {
    const made = batonWith(['claude'], {
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    });
    t = made.t;
    const run = await t.run(['dispatch', 'fix the bug', '--json'], { cwd: made.repo });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('no --agent given: running claude, the only agent found on PATH');
    expect((JSON.parse(run.stdout) as SessionView).agent).toBe('claude');
  });

  it('asks for a choice when several agents are installed and none is chosen', async () => {
    const made = batonWith(['claude', 'codex'], { ANTHROPIC_API_KEY: 'sk-test', OPENAI_API_KEY: 'sk-test' });
    t = made.t;
    const run = await t.run(['dispatch', 'fix the bug'], { cwd: made.repo });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(
      /Several agents are installed \(claude, codex\).*baton config set agent <claude\|codex>/,
    );
    expect(await sessions(t, made.repo)).toEqual([]);
  });

  it('runs an ACP agent when neither claude nor codex is installed, and prefers them when one is', async () => {
    const made = batonWith(['gemini'], { GEMINI_API_KEY: 'test-key' });
    t = made.t;
    const run = await t.run(['dispatch', 'fix the bug', '--json'], { cwd: made.repo });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('no --agent given: running gemini, the only agent found on PATH');
    expect((JSON.parse(run.stdout) as SessionView).agent).toBe('gemini');
    t.cleanup();
    // Installed beside claude, gemini is not a second choice to ask about: claude runs, as before.
    const both = batonWith(['claude', 'gemini'], {
      ANTHROPIC_API_KEY: 'sk-test',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      GEMINI_API_KEY: 'test-key',
    });
    t = both.t;
    const claude = await t.run(['dispatch', 'fix the bug', '--json'], { cwd: both.repo });
    expect(claude.code, claude.stderr).toBe(0);
    expect((JSON.parse(claude.stdout) as SessionView).agent).toBe('claude');
    t.cleanup();
    // Two ACP agents and neither claude nor codex: the choice is the person's.
    const two = batonWith(['gemini', 'opencode'], { GEMINI_API_KEY: 'test-key', OPENCODE_API_KEY: 'k' });
    t = two.t;
    const refused = await t.run(['dispatch', 'fix the bug'], { cwd: two.repo });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Several agents are installed \(gemini, opencode\)/);
  });

  it('refuses an agent name nobody has everywhere an agent is named, making nothing', async () => {
    const made = batonWith([]);
    t = made.t;
    mkdirSync(t.home, { recursive: true });
    writeFileSync(
      join(t.home, 'config.json'),
      JSON.stringify({ agents: { 'my-acp': { command: 'my-acp' } } }),
    );
    await t.ok(['task', 'add', 'fix the bug'], { cwd: made.repo });
    writeFileSync(join(t.root, 'items.txt'), 'a\nb\n');
    for (const attempt of [
      ['dispatch', 'fix the bug', '--agent', 'nope'],
      ['dispatch', 'fix the bug', '--best-of', '2', '--agents', 'scripted,nope'],
      ['fanout', join(t.root, 'items.txt'), '--prompt', 'fix each', '--agent', 'nope'],
      ['task', 'start', '1', '--agent', 'nope'],
      ['routine', 'add', 'nightly', '--cron', '0 3 * * *', '--prompt', 'tidy', '--agent', 'nope'],
    ]) {
      const refused = await t.run(attempt, { cwd: made.repo });
      expect(refused.code, attempt.join(' ')).not.toBe(0);
      expect(refused.stderr, attempt.join(' ')).toMatch(
        /Unknown agent "nope": Baton's agents are scripted, claude, codex, gemini, opencode, qwen, copilot, and yours my-acp/,
      );
    }
    // A name no agent could have is refused by the CLI before it asks anyone.
    const malformed = await t.run(['dispatch', 'fix the bug', '--agent', 'My Agent'], { cwd: made.repo });
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toMatch(/"My Agent" is not an agent name/);
    expect(await sessions(t, made.repo)).toEqual([]);
    // The default agent names an agent that exists: one of Baton's or one of the user's entries.
    const bad = await t.run(['config', 'set', 'agent', 'other']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/no agent is called "other".*\(my-acp\)/);
    expect((await t.ok(['config', 'set', 'agent', 'my-acp'])).trim()).toContain('agent = "my-acp"');
  });

  it('gives a routine added without --agent the dispatch default, not claude', async () => {
    const none = batonWith([]);
    t = none.t;
    const refused = await t.run(['routine', 'add', 'nightly', '--cron', '0 3 * * *', '--prompt', 'tidy'], {
      cwd: none.repo,
    });
    expect(refused.code, refused.stdout).not.toBe(0);
    expect(refused.stderr).toMatch(/No agent is set up/);
    t.cleanup();

    const made = batonWith(['codex'], { OPENAI_API_KEY: 'sk-test' });
    t = made.t;
    const added = await t.json<{ spec: { agent: string } }>(
      ['routine', 'add', 'nightly', '--cron', '0 3 * * *', '--prompt', 'tidy', '--json'],
      { cwd: made.repo },
    );
    expect(added.spec.agent).toBe('codex');
    // Named, it is kept as named.
    const named = await t.json<{ spec: { agent: string } }>(
      [
        'routine',
        'add',
        'weekly',
        '--cron',
        '0 3 * * 1',
        '--prompt',
        'tidy',
        '--agent',
        'scripted',
        '--json',
      ],
      { cwd: made.repo },
    );
    expect(named.spec.agent).toBe('scripted');
  });

  it('runs the agent set with baton config set agent, and refuses a name that is no agent', async () => {
    const made = batonWith(['claude', 'codex']);
    t = made.t;
    expect(await t.ok(['config', 'set', 'agent', 'scripted'])).toContain('agent = "scripted"');
    const bad = await t.run(['config', 'set', 'agent', 'gpt']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Not saved: agent/);
    expect(JSON.parse(readFileSync(join(t.home, 'config.json'), 'utf8'))).toEqual({ agent: 'scripted' });
    expect((await t.ok(['config', 'get', 'agent'])).trim()).toBe('scripted');

    const run = await t.run(['dispatch', 'fix the bug'], { cwd: made.repo });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`running the scripted agent (config.json's "agent")`);
    expect((await sessions(t, made.repo)).map((s) => s.agent)).toEqual(['scripted']);

    // A configured real agent is checked like a found one: codex here has no sign-in.
    await t.ok(['config', 'set', 'agent', 'codex']);
    const codex = await t.run(['dispatch', 'fix it again'], { cwd: made.repo });
    expect(codex.code).not.toBe(0);
    expect(codex.stderr).toMatch(
      /codex \(config.json's "agent"\), but it is not signed in .*: run codex login/,
    );
    await t.ok(['config', 'unset', 'agent']);
    expect((await t.ok(['config', 'get', 'agent'])).trim()).toBe('agent is not set');
  });

  it('asks once on a terminal which installed agent to run, saves the answer and runs it', async () => {
    const made = batonWith(['claude', 'codex'], { ANTHROPIC_API_KEY: 'sk-test', OPENAI_API_KEY: 'sk-test' });
    t = made.t;
    await t.ok(['daemon', 'start']); // the supervisor with this test's environment, as the pane's would be
    term = new Terminal(
      t.root,
      'ask',
      [process.execPath, BIN, 'dispatch', 'fix the bug', '--name', 'asked'],
      {
        cwd: made.repo,
        env: t.env,
        columns: 200,
      },
    );
    await term.waitFor('Which one should Baton run?');
    expect(term.screen()).toMatch(/1\) claude .*stub-bin\/claude\n\s+2\) codex /);
    term.type('2');
    term.keys('Enter');
    await term.waitFor('Dispatched asked');
    expect(term.screen()).toContain('Saved: codex runs when no --agent is given');
    expect(JSON.parse(readFileSync(join(t.home, 'config.json'), 'utf8'))).toEqual({ agent: 'codex' });
    expect((await sessions(t, made.repo)).map((s) => [s.name, s.agent])).toEqual([['asked', 'codex']]);
    // Asked once: the next dispatch, even from a script, runs the saved choice.
    const next = await t.run(['dispatch', 'and the other bug', '--json'], { cwd: made.repo });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`running codex (config.json's "agent")`);
  });

  it('the terminal board and the page send no agent when the form leaves it blank', async () => {
    // The same supervisor default, reached through the API without an agent (as the forms send it).
    const made = batonWith([], { BATON_AGENT: 'scripted' });
    t = made.t;
    const { dispatch, emptyDispatch } = await import('../../src/board/actions.js');
    await t.ok(['ls'], { cwd: made.repo }); // starts the supervisor with this test's environment
    const said = await dispatch(t.client(), { ...emptyDispatch, prompt: 'fix the bug' }, made.repo);
    expect(said).toMatch(/\(scripted\).*No agent named: ran the scripted agent \(BATON_AGENT\)/);
  });
});
