/** Entry point of a session host process: `node host-main.js <home> <session-id>`. */
import { readFileSync } from 'node:fs';
import { setLogFile, createLogger } from '../shared/log.js';
import { sessionPaths } from '../shared/paths.js';
import { errorMessage } from '../shared/errors.js';
import { SessionHost } from './host.js';
import { HostSpec } from './spec.js';

const [home, sessionId] = process.argv.slice(2);
if (home === undefined || sessionId === undefined) {
  process.stderr.write('usage: host-main <baton-home> <session-id>\n');
  process.exit(2);
}
const paths = sessionPaths(home, sessionId);
setLogFile(paths.hostLog);
const log = createLogger('host');
process.title = `baton-host ${sessionId}`;

const spec = HostSpec.parse(JSON.parse(readFileSync(paths.spec, 'utf8')));
const host = new SessionHost(spec);
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
    // Tell the spawning supervisor we are up; it then lets go of our stdout.
    if (process.send) process.send({ ready: true });
  },
  (error: unknown) => {
    log.error('host failed to start', { error: errorMessage(error) });
    process.stderr.write(`session host failed to start: ${errorMessage(error)}\n`);
    process.exit(1);
  },
);
