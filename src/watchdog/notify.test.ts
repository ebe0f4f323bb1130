/**
 * Desktop notifications are shown after the work that published them, and a burst is one
 * notification (decision 447): a recording stand-in for `notify-send` first on the PATH.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceBus } from '../bus/index.js';
import { SessionStateChanged } from '../events/workspace.js';
import { openDb, type Db } from '../store/db.js';
import { waitForFileContaining } from '../../test/support/process.js';
import { DEFAULT_NOTIFY, DesktopNotifier, noticesShown } from './notify.js';

let dir: string;
let db: Db;
let bus: WorkspaceBus;
let notifier: DesktopNotifier;
let log: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-notify-'));
  log = join(dir, 'notified.jsonl');
  const program = join(dir, 'notify-send');
  writeFileSync(
    program,
    `#!/usr/bin/env node\nrequire('node:fs').appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
  );
  chmodSync(program, 0o755);
  db = openDb(join(dir, 'baton.db'));
  bus = new WorkspaceBus(db);
  notifier = new DesktopNotifier(db, bus, DEFAULT_NOTIFY, {
    ...process.env,
    PATH: `${dir}:${process.env.PATH ?? ''}`,
  });
  notifier.start();
});
afterEach(() => {
  notifier.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const titles = (): string[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as string[])[2] ?? '')
    : [];

function needsInput(name: string): void {
  bus.publish(SessionStateChanged, {
    sessionId: `id-${name}`,
    name,
    project: 'p',
    from: 'working',
    to: 'needs_input',
    reason: { kind: 'question', text: `${name}?` },
  });
}

describe('desktop notifications in bursts (decision 447)', () => {
  it('shows nothing inside the work that published the notice, and each notice of a small batch on its own', async () => {
    needsInput('a');
    needsInput('b');
    // Still inside the work that published them: no program has been started.
    expect(titles()).toEqual([]);
    await waitForFileContaining(dir, 'notified.jsonl', 'b needs input');
    await waitForFileContaining(dir, 'notified.jsonl', 'a needs input');
    expect(titles().sort()).toEqual(['a needs input', 'b needs input']);
  });

  it('shows a burst of notices (a restart finding many sessions waiting) as one notification', async () => {
    for (let i = 0; i < 50; i++) needsInput(`s${i}`);
    await waitForFileContaining(dir, 'notified.jsonl', 'Baton: 50 notices');
    // A later notice, in a later turn of the loop, is shown on its own: after it, nothing else came.
    needsInput('later');
    await waitForFileContaining(dir, 'notified.jsonl', 'later needs input');
    expect(titles().sort()).toEqual(['Baton: 50 notices', 'later needs input']);
    const [summary] = readFileSync(log, 'utf8')
      .split('\n')
      .map((line) => (line === '' ? [] : (JSON.parse(line) as string[])))
      .filter((args) => args[2] === 'Baton: 50 notices');
    expect(summary?.[3]).toBe('s0 needs input; s1 needs input; s2 needs input; and 47 more (baton ls)');
  });

  it('words a burst from the notices it holds', () => {
    const notice = (n: number) => ({ title: `t${n}`, body: `b${n}` });
    expect(noticesShown([notice(1), notice(2), notice(3)])).toEqual([notice(1), notice(2), notice(3)]);
    expect(noticesShown([1, 2, 3, 4].map(notice))).toEqual([
      { title: 'Baton: 4 notices', body: 't1; t2; t3; and 1 more (baton ls)' },
    ]);
  });
});
