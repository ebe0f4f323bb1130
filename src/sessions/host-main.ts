/**
 * Entry point of a session host process.
 *   node host-main.js <home> <session-id>   runs that session now;
 *   node host-main.js <home> --warm [agent] loads everything, then waits for the supervisor to
 *                                           assign a session over IPC (a pre-started host makes
 *                                           dispatch ~0.2 s faster; decision 4, "A spare host is kept warm").
 */
import { readFileSync } from 'node:fs';
import { setLogFile, createLogger } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import { errorMessage } from '../shared/errors.js';
import { loadAdapter } from '../agents/index.js';
import { isBuiltinAgent } from '../events/vocabulary.js';
import { SessionHost } from './host.js';
import { sandboxStatus } from '../sandbox/index.js';
import { HostSpec } from './spec.js';

const [home, target] = process.argv.slice(2);
if (home === undefined || target === undefined) {
  process.stderr.write('usage: host-main <baton-home> <session-id | --warm>\n');
  process.exit(2);
}

if (target === '--warm') {
  let assigned = false;
  // Load the adapter the supervisor expects next (the last one dispatched) while we wait:
  // the Claude Agent SDK alone takes ~0.3 s to load.
  const preload = process.argv[4];
  if (preload !== undefined && isBuiltinAgent(preload)) {
    loadAdapter(preload).catch(() => undefined);
  }
  // …and what every session's start needs: the gate (its shell parser alone is ~0.3 s of
  // compiling on an idle machine, seconds on a busy one), checkpoints, and the sandbox probe.
  void Promise.all([import('../policy/index.js'), import('./checkpoints.js')]).catch(() => undefined);
  sandboxStatus();
  process.on('message', (message: { assign?: string; env?: Record<string, string> }) => {
    if (assigned || typeof message.assign !== 'string' || typeof message.env !== 'object') return;
    assigned = true;
    runSession(home, message.assign, message.env);
  });
  // A spare host whose supervisor went away has nothing to do.
  process.once('disconnect', () => {
    if (!assigned) process.exit(0);
  });
} else {
  // Started for this session: our own environment is the session's.
  runSession(home, target, { ...process.env } as Record<string, string>);
}

function runSession(home: string, sessionId: string, env: Record<string, string>): void {
  const paths = sessionPaths(home, sessionId);
  setLogFile(paths.hostLog);
  const log = createLogger('host');
  process.title = `baton-host ${sessionId}`;
  const spec = HostSpec.parse(JSON.parse(readFileSync(paths.spec, 'utf8')));
  process.chdir(spec.cwd);
  const host = new SessionHost(spec, env);
  host.onExit((code) => process.exit(code));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(signal, () => {
      host.terminate().catch((error: unknown) => {
        log.error('terminate failed', { error: errorMessage(error) });
        process.exit(1);
      });
    });
  }
  process.on('uncaughtException', (error) => {
    log.error('uncaught exception', { error: error.stack ?? error.message });
    process.exit(1);
  });
  host.start().then(
    () => {
      // Tell the supervisor we are up; it then lets go of us. A supervisor that died meanwhile
      // cannot be told, and that is no reason to stop: the session runs on, and the next
      // supervisor re-attaches by the pid recorded at spawn.
      if (process.send === undefined || !process.connected) return;
      try {
        process.send({ ready: true, steps: host.steps.done() }, (error: Error | null) => {
          if (error) log.warn('the supervisor went away before the host was ready', { error: error.message });
        });
      } catch (error) {
        log.warn('the supervisor went away before the host was ready', { error: errorMessage(error) });
      }
    },
    (error: unknown) => {
      log.error('host failed to start', { error: errorMessage(error) });
      process.stderr.write(`session host failed to start: ${errorMessage(error)}\n`);
      process.exit(1);
    },
  );
}
