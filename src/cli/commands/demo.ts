/**
 * `baton demo` (what `npm start` runs): a demo repository under the state home and scripted
 * sessions that between them show every state. No API key needed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionState } from '../../events/index.js';
import type { SupervisorClient } from '../client.js';
import { client } from '../connect.js';
import type { Context } from '../context.js';
import { renderList } from '../render.js';

const LONG = 30 * 60 * 1000;

interface DemoSession {
  name: string;
  prompt: string;
  steps: unknown[];
  expect: SessionState;
  then?: 'stop' | 'done';
}

const SESSIONS: DemoSession[] = [
  {
    name: 'demo-review',
    prompt: 'add a --verbose flag to the greeter',
    expect: 'ready_for_review',
    steps: [
      { say: 'Adding a --verbose flag to greet.js.' },
      {
        edit: {
          path: 'greet.js',
          old: "const name = process.argv[2] ?? 'world';",
          new: "const args = process.argv.slice(2);\nconst verbose = args.includes('--verbose');\nconst name = args.find((a) => !a.startsWith('--')) ?? 'world';\nif (verbose) console.error(`greeting ${name}`);",
        },
      },
      { run: 'node greet.js --verbose baton' },
      { usage: { input: 5400, output: 820, usd: 0.031 } },
      { say: 'Added --verbose; it logs what it greets to stderr. Ready for review.' },
    ],
  },
  {
    name: 'demo-question',
    prompt: 'refactor the file watcher (#432)',
    expect: 'needs_input',
    steps: [
      { say: 'Reading watcher.js.' },
      { run: 'cat watcher.js' },
      { usage: { input: 3100, output: 240, usd: 0.012 } },
      {
        ask: 'Should I keep the old onChange(path) signature for existing callers, or switch to onChange(event)?',
      },
      { say: 'Going with: {{reply}}' },
      {
        write: {
          path: 'watcher.js',
          content:
            '// refactored per: {{reply}}\nmodule.exports = function watch(dir, onChange) { return { dir, onChange }; };\n',
        },
      },
      { say: 'Refactor done.' },
    ],
  },
  {
    name: 'demo-approval',
    prompt: 'clean up the build output',
    expect: 'needs_input',
    steps: [
      { say: 'The build folder is stale; I want to delete it.' },
      { approve: { tool: 'Bash', input: 'rm -rf build', reason: 'deletes a folder' } },
      { say: 'Cleaned up.' },
    ],
  },
  {
    name: 'demo-working',
    prompt: 'run the long test suite and fix what fails',
    expect: 'working',
    steps: [
      { say: 'Running the full suite; this takes a while.' },
      { run: 'ls' },
      { sleep: LONG },
      { say: 'Suite passed.' },
    ],
  },
  {
    name: 'demo-failed',
    prompt: 'upgrade the test runner',
    expect: 'failed',
    steps: [
      { say: 'Upgrading.' },
      { run: 'node -e "process.exit(3)"' },
      { fail: 'tests failed after the upgrade: 2 of 14 (exit 3)' },
    ],
  },
  {
    name: 'demo-stopped',
    prompt: 'benchmark the greeter',
    expect: 'working',
    then: 'stop',
    steps: [{ say: 'Benchmarking…' }, { sleep: LONG }],
  },
  {
    name: 'demo-completed',
    prompt: 'fix the typo in the README',
    expect: 'ready_for_review',
    then: 'done',
    steps: [{ edit: { path: 'README.md', old: 'Greeter', new: 'Greeter tool' } }, { say: 'Fixed.' }],
  },
];

export async function demo(ctx: Context): Promise<void> {
  const api = await client(ctx);
  const repo = join(ctx.home, 'demo', 'greeter');
  await removeOldDemoSessions(api, repo);
  createDemoRepository(repo);
  const demoCtx = { ...ctx, cwd: repo };
  const apiInRepo = await client(demoCtx);
  ctx.out.write(`Demo repository: ${repo}\n`);

  for (const session of SESSIONS) {
    await apiInRepo.call('POST /api/sessions', {
      body: {
        prompt: session.prompt,
        cwd: repo,
        name: session.name,
        agent: 'scripted',
        options: { script: { steps: session.steps } },
      },
    });
    await waitForState(apiInRepo, session.name, session.expect);
    if (session.then !== undefined)
      await apiInRepo.call(`POST /api/sessions/:ref/${session.then}`, { params: { ref: session.name } });
  }
  await fillToShowQueue(apiInRepo, repo, ctx);

  const { sessions } = await apiInRepo.call('GET /api/sessions', { query: { project: repo } });
  ctx.out.write('\n' + renderList(sessions));
  ctx.out.write(
    [
      '',
      'Try next (in another terminal, or with ./bin/baton from this folder; `npm link` installs `baton`):',
      '  baton ls                                   # the board, grouped by state',
      '  baton peek demo-question                   # what it is doing and asking',
      '  baton reply demo-question "keep the old signature"',
      '  baton approve demo-approval                # or: baton deny demo-approval --reason "not now"',
      '  baton logs demo-review                     # its events; add -f to follow live',
      '  baton attach demo-working                  # live stream; Ctrl-C detaches',
      '  baton respawn demo-failed                  # run it again in its worktree',
      '  baton rm demo-review                       # removes the worktree, keeps uncommitted work in a ref',
      '  baton daemon stop                          # sessions keep running; any command restarts it',
      '  baton ui                                   # the same board in your browser',
      '',
      'The demo sessions wait or sleep for up to 30 minutes; `baton rm <name>` removes one, and',
      'running `npm start` again resets the demo.',
      '',
    ].join('\n'),
  );
}

async function removeOldDemoSessions(api: SupervisorClient, repo: string): Promise<void> {
  const { sessions } = await api.call('GET /api/sessions', { query: { project: repo } });
  for (const session of sessions)
    await api.call('DELETE /api/sessions/:ref', { params: { ref: session.id } });
}

function createDemoRepository(repo: string): void {
  if (existsSync(repo)) rmSync(repo, { recursive: true, force: true });
  mkdirSync(repo, { recursive: true });
  writeFileSync(join(repo, 'README.md'), '# Greeter\n\nA tiny program the demo sessions work on.\n');
  writeFileSync(
    join(repo, 'greet.js'),
    "const name = process.argv[2] ?? 'world';\nconsole.log(`hello, ${name}`);\n",
  );
  writeFileSync(
    join(repo, 'watcher.js'),
    'module.exports = function watch(dir, onChange) { /* calls onChange(path) */ };\n',
  );
  mkdirSync(join(repo, 'build'));
  writeFileSync(join(repo, 'build', 'greet.min.js'), 'console.log("stale")\n');
  const git = (...args: string[]): void => {
    execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  };
  git('init', '--quiet', '--initial-branch=main');
  git('add', '.');
  git(
    '-c',
    'user.name=Baton Demo',
    '-c',
    'user.email=demo@baton.local',
    'commit',
    '--quiet',
    '-m',
    'Greeter: first version',
  );
}

/** Occupies the free slots with long-running sessions, then dispatches one more that must queue. */
async function fillToShowQueue(api: SupervisorClient, repo: string, ctx: Context): Promise<void> {
  const status = await api.call('GET /api/daemon');
  const free = status.maxConcurrent - status.active;
  if (free > 6) {
    ctx.out.write(
      `(Skipping the queue demo: ${free} free slots. Set BATON_MAX_CONCURRENT lower to see queueing.)\n`,
    );
    return;
  }
  for (let i = 1; i <= free; i++) {
    await api.call('POST /api/sessions', {
      body: {
        prompt: `keep a slot busy (${i})`,
        cwd: repo,
        name: `demo-busy-${i}`,
        agent: 'scripted',
        options: { script: { steps: [{ say: 'Busy for a while.' }, { sleep: LONG }] } },
      },
    });
  }
  await api.call('POST /api/sessions', {
    body: {
      prompt: 'write the changelog once a slot frees up',
      cwd: repo,
      name: 'demo-queued',
      agent: 'scripted',
      options: {
        script: {
          steps: [
            { write: { path: 'CHANGELOG.md', content: '# Changelog\n' } },
            { say: 'Changelog written.' },
          ],
        },
      },
    },
  });
}

async function waitForState(api: SupervisorClient, name: string, state: SessionState): Promise<void> {
  const deadline = performance.now() + 20_000;
  for (;;) {
    const { session } = await api.call('GET /api/sessions/:ref', { params: { ref: name } });
    if (session.state === state) return;
    if (performance.now() > deadline)
      throw new Error(`demo session ${name} did not reach ${state} (it is ${session.state})`);
    // A demo, not a test: a short poll keeps it simple.
    await new Promise((r) => setTimeout(r, 50));
  }
}
