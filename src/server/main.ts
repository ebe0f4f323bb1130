/** Entry point of the supervisor process (started detached by the CLI). */
import { bootSupervisor } from './boot.js';

bootSupervisor().catch((error: unknown) => {
  process.stderr.write(
    `supervisor failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
