/** Entry point of the supervisor process (started detached by the CLI). */
import { runSupervisor } from './supervisor.js';

runSupervisor().catch((error: unknown) => {
  process.stderr.write(
    `supervisor failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
