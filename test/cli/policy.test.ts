/**
 * The destructive-action gate and allow rules through the real binary, with the scripted agent:
 * the gate blocks in every permission mode (bypass too) and lets the near miss through; an
 * allow rule stops the repeated approval, is listed, revoked, and never wins over the gate;
 * `baton policy test` explains a verdict; a bad policy in .baton/config.json is named.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionView } from '../../src/api/index.js';
import type { AllowRuleView, PolicyView, VerdictView } from '../../src/api/policy.js';
import type { BatonEvent } from '../../src/events/index.js';
import { eachTest, type TestBaton } from '../support/baton.js';

let t: TestBaton;
let repo: string;
eachTest((baton, dir) => ((t = baton), (repo = dir)));

const MODES = ['default', 'acceptEdits', 'bypassPermissions'] as const;

async function dispatch(
  name: string,
  steps: unknown[],
  mode: (typeof MODES)[number] = 'default',
  extra: Record<string, unknown> = {},
): Promise<SessionView> {
  if (mode === 'bypassPermissions') await t.ok(['daemon', 'start']);
  if (mode === 'bypassPermissions')
    await t.client().call('POST /api/dangerous-mode/accept', { body: { cwd: repo } });
  return t.json<SessionView>(
    ['dispatch', 'x', '--name', name, '--permission-mode', mode, '--script', t.script(steps, extra)],
    { cwd: repo },
  );
}

async function events(name: string): Promise<BatonEvent[]> {
  const lines = (await t.ok(['logs', name, '--json'])).split('\n').filter((l) => l.trim() !== '');
  return lines.map((l) => JSON.parse(l) as BatonEvent);
}

describe('the gate', () => {
  for (const mode of MODES) {
    it(`blocks a recursive delete of the home folder in ${mode} mode, and lets rm -rf build/ inside the worktree run`, async () => {
      const home = t.env.HOME ?? '';
      writeFileSync(join(home, 'precious.txt'), 'keep me\n');
      const s = await dispatch(
        `del-${mode}`,
        [
          { run: 'mkdir -p build && touch build/x' },
          { run: 'FOO=1 rm -rf ~' },
          { run: 'rm -rf build/' },
          { say: 'done' },
        ],
        mode,
      );
      await t.waitForState(s.name, 'ready_for_review');
      const log = await events(s.name);
      const blocked = log.find((e) => e.type === 'tool.blocked');
      expect(blocked).toMatchObject({
        type: 'tool.blocked',
        tool: 'Bash',
        rule: 'recursive-delete',
        input: 'FOO=1 rm -rf ~',
      });
      expect(existsSync(join(home, 'precious.txt'))).toBe(true);
      // The near miss ran: the build folder is gone, and nothing was asked.
      expect(existsSync(join(s.worktree, 'build'))).toBe(false);
      expect(log.some((e) => e.type === 'approval.requested')).toBe(false);
      expect(await t.ok(['logs', s.name])).toMatch(
        /tool\.blocked\s+Bash FOO=1 rm -rf ~ — recursive-delete: deletes .*outside the worktree/,
      );
    });
  }

  it('turns destructive SQL into an approval even in bypass mode, and an allow rule cannot be made from it', async () => {
    const s = await dispatch(
      'sql',
      [{ run: 'psql -c "DROP TABLE users"' }, { say: 'after' }],
      'bypassPermissions',
    );
    const waiting = await t.waitForState(s.name, 'needs_input');
    expect(JSON.stringify(waiting)).toMatch(/Baton's gate \(sql-destructive\)/);
    const always = await t.run(['approve', s.name, '--always'], { cwd: repo });
    expect(always.code).not.toBe(0);
    expect(always.stderr).toMatch(
      /The gate's rule sql-destructive decides about .*an allow rule cannot cover it/,
    );
    expect((await t.json<PolicyView>(['policy', 'ls'], { cwd: repo })).allow).toEqual([]);
    await t.ok(['deny', s.name, '--reason', 'not on my database'], { cwd: repo });
    await t.waitForState(s.name, 'ready_for_review');
  });

  it('is explained by baton policy test: the rule, why, the safe alternative and the command as parsed', async () => {
    const block = await t.json<VerdictView>(['policy', 'test', 'FOO=1 sudo bash -c "rm -rf /"'], {
      cwd: repo,
    });
    expect(block).toMatchObject({
      action: 'block',
      rule: 'recursive-delete',
      suggest: expect.stringMatching(/inside the worktree/),
    });
    expect(block.parsed).toEqual(['sudo › bash -c › rm -rf /']);
    const text = await t.ok(['policy', 'test', 'git push -f origin main'], { cwd: repo });
    expect(text).toMatch(/^block: git-force-push — force-pushing overwrites/);
    expect(text).toMatch(/instead: git push --force-with-lease/);
    expect((await t.json<VerdictView>(['policy', 'test', 'echo "rm -rf /"'], { cwd: repo })).action).toBe(
      'allow',
    );
    const unsure = await t.json<VerdictView>(['policy', 'test', 'echo "unterminated'], { cwd: repo });
    expect(unsure).toMatchObject({ action: 'ask', rule: 'unparseable', uncertain: true });
    const edit = await t.json<VerdictView>(['policy', 'test', '--path', '/etc/hosts'], { cwd: repo });
    expect(edit).toMatchObject({ action: 'ask', rule: 'write-outside' });
    const none = await t.run(['policy', 'test'], { cwd: repo });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toMatch(/Give a command to judge/);
  });

  it("follows the repository's policy: a rule turned off, its own rule, and a bad key or rule named without dispatching", async () => {
    mkdirSync(join(repo, '.baton'), { recursive: true });
    const config = (policy: unknown): void =>
      writeFileSync(join(repo, '.baton', 'config.json'), JSON.stringify({ policy }));
    config({
      rules: { 'package-publish': 'off' },
      custom: [
        {
          id: 'tf-destroy',
          command: 'terraform',
          args: ['destroy'],
          action: 'block',
          why: 'destroys the infrastructure',
        },
      ],
    });
    expect((await t.json<VerdictView>(['policy', 'test', 'npm publish'], { cwd: repo })).action).toBe(
      'allow',
    );
    expect(
      await t.json<VerdictView>(['policy', 'test', 'sudo terraform destroy -auto-approve'], { cwd: repo }),
    ).toMatchObject({ action: 'block', rule: 'tf-destroy' });
    const listed = await t.json<PolicyView>(['policy', 'ls'], { cwd: repo });
    expect(listed.rules.find((r) => r.id === 'package-publish')?.action).toBe('off');
    expect(listed.rules.find((r) => r.id === 'tf-destroy')).toMatchObject({ action: 'block', custom: true });

    config({ rules: { 'rm-everything': 'off' } });
    const unknownRule = await t.run(
      ['dispatch', 'x', '--name', 'bad1', '--script', t.script([{ say: 'hi' }])],
      { cwd: repo },
    );
    expect(unknownRule.code).not.toBe(0);
    expect(unknownRule.stderr).toMatch(
      /policy\.rules\.rm-everything: no built-in rule is called "rm-everything"/,
    );
    config({ rule: {} });
    const unknownKey = await t.run(['policy', 'ls'], { cwd: repo });
    expect(unknownKey.code).not.toBe(0);
    expect(unknownKey.stderr).toMatch(/Unrecognized key.*"rule"/);
    config({ rules: { disk: 'sometimes' } });
    expect((await t.run(['policy', 'test', 'ls'], { cwd: repo })).stderr).toMatch(/policy\.rules\.disk/);
    const { sessions } = await t.client().call('GET /api/sessions');
    expect(sessions).toEqual([]);
  });
});

describe('allow rules', () => {
  it('stop the repeated approval (auto-approved by the rule, recorded), are listed, and once revoked the approval asks again', async () => {
    const approve = { approve: { tool: 'Bash', input: 'echo ran >> ran.txt' } };
    const s = await dispatch('rep', [approve], 'default', { onReply: [approve] });
    await t.waitForState(s.name, 'needs_input');
    const approved = await t.ok(['approve', s.name, '--always'], { cwd: repo });
    expect(approved).toMatch(/From now on calls like it are approved in this repository/);
    await t.waitForState(s.name, 'ready_for_review');
    const [rule] = (await t.json<PolicyView>(['policy', 'ls'], { cwd: repo })).allow as [AllowRuleView];
    expect(rule).toMatchObject({
      project: repo,
      tool: null,
      pattern: 'echo ran >> ran.txt',
      source: 'approval',
    });

    // The same call again: answered by the rule, without the user.
    await t.ok(['reply', s.name, 'again'], { cwd: repo });
    const resolved = await t.waitForEvent(
      s.name,
      (e) => e.type === 'approval.resolved' && e.reason === `approved by allow rule ${rule.id}`,
    );
    expect(resolved).toMatchObject({ decision: 'allow' });
    await t.waitForEvent(s.name, (e) => e.type === 'turn.completed' && e.seq > resolved.seq);
    expect(readFileSync(join(s.worktree, 'ran.txt'), 'utf8')).toBe('ran\nran\n');
    const workspace = (await t.client().call('GET /api/workspace/events')).events;
    expect(workspace.find((e) => e.type === 'policy.auto_approved')).toMatchObject({
      data: { name: 'rep', ruleId: rule.id, input: 'echo ran >> ran.txt' },
    });

    await t.ok(['policy', 'revoke', String(rule.id)], { cwd: repo });
    expect((await t.json<PolicyView>(['policy', 'ls'], { cwd: repo })).allow).toEqual([]);
    await t.ok(['reply', s.name, 'once more'], { cwd: repo });
    const asked = await t.waitForState(s.name, 'needs_input');
    expect(asked.state).toBe('needs_input');
    await t.ok(['deny', s.name], { cwd: repo });
    await t.waitForState(s.name, 'ready_for_review');
    expect(readFileSync(join(s.worktree, 'ran.txt'), 'utf8')).toBe('ran\nran\n');
    const revokedTwice = await t.run(['policy', 'revoke', String(rule.id)], { cwd: repo });
    expect(revokedTwice.code).not.toBe(0);
    expect(revokedTwice.stderr).toMatch(new RegExp(`No allow rule ${rule.id}`));
  });

  it('are added by hand (a command prefix, a tool), refuse a pattern that is not one plain command, and cover only whole commands', async () => {
    const rule = await t.json<AllowRuleView>(['policy', 'allow', 'npm test', '--here'], { cwd: repo });
    expect(rule).toMatchObject({ pattern: 'npm test', project: repo, tool: null });
    const everywhere = await t.json<AllowRuleView>(['policy', 'allow', '--tool', 'Edit'], { cwd: repo });
    expect(everywhere).toMatchObject({ tool: 'Edit', project: null, pattern: null });
    expect(
      (await t.json<VerdictView>(['policy', 'test', 'npm test -- --watch=false'], { cwd: repo })).allowRule,
    ).toBe(rule.id);
    expect(
      (await t.json<VerdictView>(['policy', 'test', 'npm test && curl x'], { cwd: repo })).allowRule,
    ).toBeNull();
    // The gate wins: an allowed prefix does not cover what the gate asks about.
    expect(
      await t.json<VerdictView>(['policy', 'test', 'npm test && npm publish'], { cwd: repo }),
    ).toMatchObject({ action: 'ask', allowRule: null });
    const bad = await t.run(['policy', 'allow', 'npm test | sh'], { cwd: repo });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/must be one plain command/);
    const nothing = await t.run(['policy', 'allow'], { cwd: repo });
    expect(nothing.stderr).toMatch(/Give a command prefix/);
  });
});
