import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { clusterDatabases } from '../../test/support/cluster.js';
import { until } from '../../test/support/wait.js';
import { SessionStateError } from '../shared/errors.js';
import { COMMAND_CHANNELS, RemoteCommands, type CommandHandler, type RemoteCommand } from './commands.js';
import { RemoteCommandTimeoutError } from './errors.js';
import { Listener } from './listener.js';

const { database, cleanups } = clusterDatabases();

/**
 * One machine's process: its own pool and LISTEN connection. The poll is an hour, so only the
 * NOTIFY wake-ups can deliver within a test.
 */
function processOn(url: string): {
  commands: RemoteCommands;
  pool: pg.Pool;
  serve: (machine: string, handler: CommandHandler) => void;
} {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const listener = new Listener(url, COMMAND_CHANNELS, { firstMs: 20, maxMs: 200 });
  const commands = new RemoteCommands(pool, listener, { timeoutMs: 10_000, pollMs: 3_600_000 });
  cleanups.push(
    () => pool.end(),
    () => listener.close(),
    async () => commands.close(),
  );
  return {
    commands,
    pool,
    serve: (machine, handler) => {
      const serving = commands.serve(machine, handler);
      cleanups.push(() => serving.close());
    },
  };
}

async function states(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ state: string }>('SELECT state FROM cluster_commands ORDER BY id');
  return rows.map((row) => row.state);
}

const reply = (i: number): RemoteCommand => ({ kind: 'reply', sessionId: 's1', text: `reply ${i}` });

describe('remote commands', () => {
  test("a read's answer is delivered and then not kept; an action's stays on record", async () => {
    const url = await database();
    const laptop = processOn(url);
    const buildBox = processOn(url);
    buildBox.serve('build-box', (command) =>
      command.kind === 'diff' ? { text: 'x'.repeat(100_000), truncated: false } : { ok: true },
    );
    await expect(
      laptop.commands.send('build-box', { kind: 'diff', sessionId: 's1' }, { forget: true }),
    ).resolves.toEqual({ text: 'x'.repeat(100_000), truncated: false });
    await expect(laptop.commands.send('build-box', { kind: 'stop', sessionId: 's1' })).resolves.toEqual({
      ok: true,
    });
    // The delete runs after the answer is handed over; the next query on the pool sees it done.
    for (let i = 0; i < 50 && (await states(laptop.pool)).length > 1; i++)
      await new Promise((r) => setImmediate(r));
    expect(await states(laptop.pool)).toEqual(['done']);
  });

  test('a command runs on the machine that serves it and its answer comes back', async () => {
    const url = await database();
    const laptop = processOn(url);
    const buildBox = processOn(url);
    const seen: RemoteCommand[] = [];
    buildBox.serve('build-box', (command) => {
      seen.push(command);
      return { accepted: true, kind: command.kind };
    });
    buildBox.serve('other-box', () => {
      throw new Error('not for this machine');
    });
    await expect(laptop.commands.send('build-box', { kind: 'stop', sessionId: 's1' })).resolves.toEqual({
      accepted: true,
      kind: 'stop',
    });
    await expect(
      laptop.commands.send('build-box', {
        kind: 'approval',
        sessionId: 's1',
        approvalId: 'r1',
        decision: 'deny',
        reason: 'no',
      }),
    ).resolves.toEqual({ accepted: true, kind: 'approval' });
    expect(seen).toEqual([
      { kind: 'stop', sessionId: 's1' },
      { kind: 'approval', sessionId: 's1', approvalId: 'r1', decision: 'deny', reason: 'no' },
    ]);
    expect(await states(laptop.pool)).toEqual(['done', 'done']);
  });

  test('a bad machine name or command is refused naming the bad key, and nothing is sent', async () => {
    const url = await database();
    const laptop = processOn(url);
    await expect(laptop.commands.send('not a name!', reply(1))).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'machine' },
    });
    await expect(
      laptop.commands.send('build-box', { kind: 'approval', sessionId: 's1', decision: 'maybe' }),
    ).rejects.toMatchObject({ data: { key: 'command.decision' } });
    await expect(
      laptop.commands.send('build-box', { kind: 'reply', sessionId: 's1', text: '' }),
    ).rejects.toMatchObject({ data: { key: 'command.text' } });
    await expect(
      laptop.commands.send('build-box', { kind: 'teleport', sessionId: 's1' }),
    ).rejects.toMatchObject({ data: { key: 'command.kind' } });
    expect(() => laptop.commands.serve('any', () => null)).toThrow(
      expect.objectContaining({ data: { key: 'machine', value: 'any' } }),
    );
    expect(await states(laptop.pool)).toEqual([]);
  });

  test("the handler's error comes back with its message and code", async () => {
    const url = await database();
    const laptop = processOn(url);
    const buildBox = processOn(url);
    buildBox.serve('build-box', (command) => {
      if (command.kind === 'stop') throw new SessionStateError('Session s1 is not running; nothing to stop.');
      throw new Error('disk on fire');
    });
    await expect(laptop.commands.send('build-box', { kind: 'stop', sessionId: 's1' })).rejects.toMatchObject({
      name: 'RemoteCommandFailedError',
      code: 'conflict',
      message: 'Session s1 is not running; nothing to stop.',
      data: { machine: 'build-box' },
    });
    await expect(laptop.commands.send('build-box', reply(1))).rejects.toMatchObject({
      code: 'internal',
      message: 'disk on fire',
    });
    expect(await states(laptop.pool)).toEqual(['failed', 'failed']);
  });

  test('with two servers for one machine name, each of 60 commands runs exactly once', async () => {
    const url = await database();
    const senders = [processOn(url), processOn(url)];
    const runs = new Map<string, number>();
    const servers = [processOn(url), processOn(url)];
    for (const [i, s] of servers.entries()) {
      s.serve('build-box', async (command) => {
        const text = command.kind === 'reply' ? command.text : '';
        runs.set(text, (runs.get(text) ?? 0) + 1);
        // Yield, so both servers are claiming while others run.
        await new Promise((resolve) => setImmediate(resolve));
        return { by: i, text };
      });
    }
    const answers = await Promise.all(
      Array.from(
        { length: 60 },
        (_, i) => senders[i % 2]!.commands.send('build-box', reply(i)) as Promise<{ text: string }>,
      ),
    );
    expect(answers.map((a) => a.text)).toEqual(Array.from({ length: 60 }, (_, i) => `reply ${i}`));
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(runs.size).toBe(60);
  });

  test('two machines deciding one approval at once: one succeeds, the other is refused by the owner', async () => {
    const url = await database();
    const laptop = processOn(url);
    const desktop = processOn(url);
    const buildBox = processOn(url);
    // The owner's local rule, as its session manager keeps it: an approval is decided once.
    const decided = new Map<string, string>();
    buildBox.serve('build-box', async (command) => {
      if (command.kind !== 'approval' || command.approvalId === undefined)
        throw new Error('unexpected command');
      await new Promise((resolve) => setImmediate(resolve));
      const earlier = decided.get(command.approvalId);
      if (earlier !== undefined)
        throw new SessionStateError(
          `Approval ${command.approvalId} was already decided (${earlier}); nothing was changed.`,
        );
      decided.set(command.approvalId, command.decision);
      return { decided: command.decision };
    });
    const results = await Promise.allSettled([
      laptop.commands.send('build-box', {
        kind: 'approval',
        sessionId: 's1',
        approvalId: 'r7',
        decision: 'allow',
      }),
      desktop.commands.send('build-box', {
        kind: 'approval',
        sessionId: 's1',
        approvalId: 'r7',
        decision: 'deny',
      }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatchObject({
      code: 'conflict',
      message: `Approval r7 was already decided (${decided.get('r7')}); nothing was changed.`,
    });
    expect(won[0]).toEqual({ status: 'fulfilled', value: { decided: decided.get('r7') } });
  });

  test('nobody serving the machine: a clear timeout naming it, and the command is withdrawn, never run later', async () => {
    const url = await database();
    const laptop = processOn(url);
    const error = await laptop.commands
      .send('build-box', reply(1), { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteCommandTimeoutError);
    expect(error).toMatchObject({
      code: 'host_unresponsive',
      data: { machine: 'build-box', ms: 300, taken: false },
    });
    expect((error as Error).message).toMatch(
      /^The machine "build-box" did not take the command within 300 ms, so it was withdrawn and will not run/,
    );
    expect(await states(laptop.pool)).toEqual(['expired']);
    // build-box comes back: it runs what is sent now, and never the withdrawn command.
    const buildBox = processOn(url);
    const ran: string[] = [];
    buildBox.serve('build-box', (command) => {
      ran.push(command.kind === 'reply' ? command.text : command.kind);
      return null;
    });
    await expect(laptop.commands.send('build-box', reply(2))).resolves.toBeNull();
    expect(ran).toEqual(['reply 2']);
  });

  test('a machine that takes a command and does not answer in time: a timeout saying it may still take effect', async () => {
    const url = await database();
    const laptop = processOn(url);
    const buildBox = processOn(url);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    buildBox.serve('build-box', () => held);
    // Released before the server closes, which waits for the commands it runs.
    cleanups.push(async () => release());
    await expect(laptop.commands.send('build-box', reply(1), { timeoutMs: 300 })).rejects.toMatchObject({
      data: { machine: 'build-box', taken: true },
      message: expect.stringMatching(
        /took the command but did not answer within 300 ms; it may still take effect/,
      ),
    });
    expect(await states(laptop.pool)).toEqual(['running']);
  });

  test('a command taken may run until its answer time (a push), while one not taken is still withdrawn at the take time', async () => {
    const url = await database();
    const laptop = processOn(url);
    const buildBox = processOn(url);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    buildBox.serve('build-box', async () => {
      await held;
      return 'pushed';
    });
    cleanups.push(async () => release());
    const sent = laptop.commands.send('build-box', reply(1), { timeoutMs: 200, answerMs: 5_000 });
    // Past the take time, the command still runs: released later, its answer arrives.
    await new Promise((resolve) => setTimeout(resolve, 400));
    release();
    await expect(sent).resolves.toBe('pushed');
    // Nobody serving: withdrawn at the take time, not held for the answer time.
    const started = Date.now();
    await expect(
      laptop.commands.send('nobody', reply(2), { timeoutMs: 200, answerMs: 60_000 }),
    ).rejects.toMatchObject({ data: { machine: 'nobody', taken: false } });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('a command this version cannot read is failed with a reason, not run', async () => {
    const url = await database();
    const buildBox = processOn(url);
    const ran: unknown[] = [];
    await buildBox.pool.query(
      'INSERT INTO cluster_commands (machine, body) VALUES (\'build-box\', \'{"kind":"teleport","sessionId":"s1"}\')',
    );
    buildBox.serve('build-box', (command) => ran.push(command));
    const laptop = processOn(url);
    await expect(laptop.commands.send('build-box', { kind: 'stop', sessionId: 's1' })).resolves.toBe(1);
    const { rows } = await buildBox.pool.query<{
      state: string;
      error: { code: string; message: string } | null;
    }>('SELECT state, error FROM cluster_commands ORDER BY id');
    expect(rows[0]).toMatchObject({
      state: 'failed',
      error: { code: 'invalid_input', message: expect.stringContaining('cannot read this command') },
    });
    expect(ran).toEqual([{ kind: 'stop', sessionId: 's1' }]);
  });

  test('finished commands older than the given age are pruned; pending and running ones stay', async () => {
    const url = await database();
    const laptop = processOn(url);
    const buildBox = processOn(url);
    buildBox.serve('build-box', (command) => {
      if (command.kind === 'stop') throw new Error('refused');
      return 'ok';
    });
    await laptop.commands.send('build-box', reply(1));
    await laptop.commands.send('build-box', { kind: 'stop', sessionId: 's1' }).catch(() => {});
    await laptop.commands.send('build-box', reply(2));
    await laptop.pool.query("INSERT INTO cluster_commands (machine, body) VALUES ('elsewhere', '{}')");
    await laptop.pool.query(
      "INSERT INTO cluster_commands (machine, body, state) VALUES ('elsewhere', '{}', 'running')",
    );
    // The first two finished an hour ago; the third just now.
    await laptop.pool.query(
      "UPDATE cluster_commands SET done_at = now() - interval '1 hour' WHERE id IN (1, 2)",
    );
    await expect(laptop.commands.prune(-1)).rejects.toMatchObject({
      code: 'invalid_input',
      data: { key: 'olderThanMs' },
    });
    expect(await laptop.commands.prune(60_000)).toBe(2);
    expect(await states(laptop.pool)).toEqual(['done', 'pending', 'running']);
  });

  test('an error code this version does not know comes back as internal, with its message', async () => {
    const url = await database();
    const laptop = processOn(url);
    const sent = laptop.commands.send('old-box', reply(1)).catch((error: unknown) => error);
    // A server of another version answers: poll (bounded) until the command is there, then fail it by hand.
    await until(async () => (await states(laptop.pool)).length > 0, 'the command is stored', {
      intervalMs: 10,
    });
    await laptop.pool.query(
      `WITH failed AS (UPDATE cluster_commands SET state = 'failed', error = '{"code":"brand_new_code","message":"the session is hibernating"}', done_at = now() RETURNING id)
       SELECT pg_notify('baton_command_done', id::text) FROM failed`,
    );
    expect(await sent).toMatchObject({
      name: 'RemoteCommandFailedError',
      code: 'internal',
      message: 'the session is hibernating',
      data: { machine: 'old-box' },
    });
  });
});
