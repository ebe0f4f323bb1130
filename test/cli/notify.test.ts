/**
 * Desktop notifications through a recording stand-in for `notify-send`, first on the PATH of the
 * real supervisor: a session needing input, a failure and an alert each notify once, a restart of
 * the supervisor sends nothing twice, and the user's config turns them off.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AlertList } from '../../src/api/watchdog.js';
import type { ChannelMessage } from '../../src/watchdog/channels.js';
import { TestBaton } from '../support/baton.js';
import { waitForFileContaining } from '../support/process.js';

let t: TestBaton | undefined;
afterEach(() => t?.cleanup());

/** A `notify-send` that appends its arguments, one JSON array a line, to `log`. */
function recordingNotifier(root: string): { bin: string; log: string } {
  const bin = join(root, 'bin');
  const log = join(root, 'notified.jsonl');
  mkdirSync(bin, { recursive: true });
  const program = join(bin, 'notify-send');
  writeFileSync(
    program,
    `#!/usr/bin/env node\nrequire('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
  );
  chmodSync(program, 0o755);
  return { bin, log };
}

function recorded(log: string): string[][] {
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as string[])
    : [];
}

function setup(): { baton: TestBaton; repo: string; log: string } {
  const probe = new TestBaton();
  const { bin, log } = recordingNotifier(probe.root);
  const baton = new TestBaton({ PATH: `${bin}:${process.env.PATH ?? ''}` });
  // The stand-in lives in the probe's folder; the probe itself started nothing.
  const cleanup = baton.cleanup.bind(baton);
  baton.cleanup = () => (cleanup(), probe.cleanup());
  t = baton;
  return { baton, repo: baton.repo(), log };
}

describe('desktop notifications', () => {
  it('tells you through notify-send when a session needs input, fails or an alert fires — once per event, even across a restart', async () => {
    const { baton, repo, log } = setup();
    await baton.ok(
      ['dispatch', 'x', '--name', 'asker', '--script', baton.script([{ ask: 'which database?' }])],
      { cwd: repo },
    );
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'asker needs input');
    expect(recorded(log)).toEqual([['--app-name=Baton', '--', 'asker needs input', 'which database?']]);

    await baton.ok(
      ['dispatch', 'y', '--name', 'breaker', '--script', baton.script([{ fail: 'the build is broken' }])],
      { cwd: repo },
    );
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'breaker failed');

    await baton.ok(
      [
        'dispatch',
        'z',
        '--name',
        'looper',
        '--script',
        baton.script([
          { run: 'touch stamp && exit 3' },
          { run: 'touch stamp && exit 3' },
          { run: 'touch stamp && exit 3' },
          { sleep: 60_000 },
        ]),
      ],
      { cwd: repo },
    );
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'looper needs input');
    // The loop's alert and the pause it causes are two notifiers, started moments apart: wait for both.
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'Baton: looper — loop');
    const before = recorded(log).map((args) => args[2]);
    // Each notifier runs as its own process: ones sent moments apart may land in either order.
    expect(before).toEqual(
      expect.arrayContaining([
        'asker needs input',
        'breaker failed',
        'Baton: looper — loop',
        'looper needs input',
      ]),
    );

    // A new supervisor replays nothing it already told you.
    await baton.ok(['daemon', 'stop']);
    await baton.ok(['daemon', 'start']);
    await baton.ok(['reply', 'asker', 'postgres'], { cwd: repo });
    await baton.waitForState('asker', 'ready_for_review');
    await baton.ok(['dispatch', 'w', '--name', 'second', '--script', baton.script([{ ask: 'again?' }])], {
      cwd: repo,
    });
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'second needs input');
    const after = recorded(log).map((args) => args[2]);
    // Each event once: the loop's failing command may still add its repeated errors, but nothing repeats.
    expect(new Set(after).size).toBe(after.length);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(after).toContain('second needs input');
    const { alerts } = await baton.json<AlertList>(['alerts'], { cwd: repo });
    expect(alerts.map((a) => a.rule)).toContain('loop');
  });

  it('never tells you about a call an allow rule approves: the session does not flip to needs input and nothing notifies', async () => {
    const { baton, repo, log } = setup();
    const rule = await baton.json<{ id: number }>(['policy', 'allow', 'echo ok', '--here'], { cwd: repo });
    const script = baton.script([
      { approve: { tool: 'Bash', input: 'echo ok >> ok.txt' } },
      { approve: { tool: 'Bash', input: 'echo ok >> ok.txt' } },
      { ask: 'ship it?' },
    ]);
    await baton.ok(['dispatch', 'x', '--name', 'ruled', '--script', script], { cwd: repo });
    // The question after the two allowed calls is the marker: notifications go out in the order of the events.
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'ruled needs input');
    expect(recorded(log)).toEqual([['--app-name=Baton', '--', 'ruled needs input', 'ship it?']]);
    const events = (
      await baton
        .client()
        .call('GET /api/sessions/:ref/events', { params: { ref: 'ruled' }, query: { after: 0 } })
    ).events;
    const needsInput = events.filter((e) => e.type === 'state.changed' && e.to === 'needs_input');
    expect(needsInput.map((e) => e.type === 'state.changed' && e.reason?.kind)).toEqual(['question']);
    const answered = events.filter((e) => e.type === 'approval.resolved');
    expect(answered).toEqual([
      expect.objectContaining({
        decision: 'allow',
        allowRule: rule.id,
        reason: `approved by allow rule ${rule.id}`,
      }),
      expect.objectContaining({ decision: 'allow', allowRule: rule.id }),
    ]);
    const workspace = (await baton.client().call('GET /api/workspace/events')).events;
    expect(workspace.filter((e) => e.type === 'policy.auto_approved')).toHaveLength(2);
    expect(
      workspace.filter(
        (e) => e.type === 'session.state_changed' && e.data.name === 'ruled' && e.data.to === 'needs_input',
      ),
    ).toHaveLength(1);

    // Revoked, the same call asks the user again, and that is worth telling them.
    await baton.ok(['policy', 'revoke', String(rule.id)], { cwd: repo });
    await baton.ok(
      [
        'dispatch',
        'y',
        '--name',
        'asked',
        '--script',
        baton.script([{ approve: { tool: 'Bash', input: 'echo ok >> ok.txt' } }]),
      ],
      {
        cwd: repo,
      },
    );
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'asked needs input');
  });

  it('sends none of a kind the user config turns off', async () => {
    const { baton, repo, log } = setup();
    mkdirSync(baton.home, { recursive: true });
    writeFileSync(join(baton.home, 'config.json'), JSON.stringify({ notifications: { needsInput: false } }));
    await baton.ok(['dispatch', 'x', '--name', 'quiet', '--script', baton.script([{ ask: 'anyone?' }])], {
      cwd: repo,
    });
    await baton.waitForState('quiet', 'needs_input');
    // Notifications go out in the order of the events: the failure after it is the marker.
    await baton.ok(['dispatch', 'y', '--name', 'loud', '--script', baton.script([{ fail: 'broken' }])], {
      cwd: repo,
    });
    await waitForFileContaining(join(log, '..'), 'notified.jsonl', 'loud failed');
    expect(recorded(log).map((args) => args[2])).toEqual(['loud failed']);
  });

  it('names a bad notifications key in the user config', async () => {
    const { baton, repo } = setup();
    mkdirSync(baton.home, { recursive: true });
    writeFileSync(join(baton.home, 'config.json'), JSON.stringify({ notifications: { desktp: false } }));
    const run = await baton.run(['ls'], { cwd: repo });
    // The supervisor refuses to start on it, as on any bad key of that file, and says which.
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/could not start: .*config\.json: notifications: Unrecognized key: "desktp"/);
  });
});

/** A local HTTP receiver standing in for the user's webhook and ntfy server: every request kept, each arrival awaited. */
async function receiver(): Promise<{
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders; body: string }[];
  until: (match: (r: { path: string; body: string }) => boolean) => Promise<void>;
  close: () => Promise<void>;
}> {
  const requests: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const waiters: (() => void)[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      res.end('{}');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  const until = async (match: (r: { path: string; body: string }) => boolean): Promise<void> => {
    while (!requests.some(match)) await new Promise<void>((wake) => waiters.push(wake));
  };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    until,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

describe('the webhook and the ntfy topic', () => {
  it('get needs-input, failed and budget events with a link to the session page — never an auto-approved call', async () => {
    const { baton, repo } = setup();
    const hook = await receiver();
    try {
      mkdirSync(baton.home, { recursive: true });
      writeFileSync(
        join(baton.home, 'config.json'),
        JSON.stringify({ notifications: { webhook: `${hook.url}/hook`, ntfy: `${hook.url}/baton-topic` } }),
      );
      await baton.ok(['policy', 'allow', 'echo ok', '--here'], { cwd: repo });
      await baton.ok(['budget', 'set', '--session', '0.05usd'], { cwd: repo });
      const asker = await baton.json<{ id: string }>(
        [
          'dispatch',
          'x',
          '--name',
          'asker',
          '--script',
          baton.script([{ approve: { tool: 'Bash', input: 'echo ok >> ok.txt' } }, { ask: 'which port?' }]),
        ],
        { cwd: repo },
      );
      await hook.until((r) => r.path === '/hook' && r.body.includes('asker needs input'));
      await hook.until((r) => r.path === '/baton-topic' && r.body.includes('which port?'));
      await baton.ok(['dispatch', 'y', '--name', 'breaker', '--script', baton.script([{ fail: 'boom' }])], {
        cwd: repo,
      });
      await hook.until((r) => r.path === '/hook' && r.body.includes('breaker failed'));
      await baton.ok(
        [
          'dispatch',
          'z',
          '--name',
          'spender',
          '--script',
          baton.script([{ usage: { input: 1000, output: 100, usd: 0.1 } }, { sleep: 60_000 }]),
        ],
        { cwd: repo },
      );
      await hook.until((r) => r.path === '/hook' && r.body.includes('"kind":"budget"'));

      const hooks = hook.requests
        .filter((r) => r.path === '/hook')
        .map((r) => JSON.parse(r.body) as ChannelMessage);
      const info = JSON.parse(readFileSync(join(baton.home, 'supervisor.json'), 'utf8')) as { port: number };
      expect(hooks.find((m) => m.title === 'asker needs input')).toMatchObject({
        kind: 'needs_input',
        message: 'which port?',
        session: { id: asker.id, name: 'asker' },
        url: `http://127.0.0.1:${info.port}/s/${asker.id}`,
      });
      expect(hooks.find((m) => m.kind === 'failed')).toMatchObject({
        title: 'breaker failed',
        message: 'boom',
      });
      expect(hooks.find((m) => m.kind === 'budget')).toMatchObject({
        session: { name: 'spender' },
        url: expect.stringMatching(/\/s\/[^/]+$/),
      });
      // The call the allow rule approved was never anybody's business.
      expect(hook.requests.filter((r) => r.body.includes('echo ok'))).toEqual([]);
      expect(hooks.filter((m) => m.session?.name === 'asker')).toHaveLength(1);
      const topic = hook.requests.find((r) => r.path === '/baton-topic' && r.body.includes('which port?'));
      expect(topic?.headers).toMatchObject({
        title: 'asker needs input',
        click: `http://127.0.0.1:${info.port}/s/${asker.id}`,
      });
    } finally {
      await hook.close();
    }
  });

  it('refuses a channel URL that is not http(s), naming the key', async () => {
    const { baton, repo } = setup();
    mkdirSync(baton.home, { recursive: true });
    writeFileSync(
      join(baton.home, 'config.json'),
      JSON.stringify({ notifications: { ntfy: 'file:///etc/passwd' } }),
    );
    const run = await baton.run(['ls'], { cwd: repo });
    expect(run.code).toBe(6);
    expect(run.stderr).toMatch(/config\.json: notifications\.ntfy: must be an http:\/\/ or https:\/\/ URL/);
  });
});
