/**
 * The git runner's own process (see `git-runner.ts`): runs the git calls its supervisor sends it
 * and sends back what each printed and how it ended. It imports nothing but Node's child_process,
 * so it stays small: a fork of it copies a few megabytes of page tables, a fork of the supervisor
 * fifty and more, and Node waits in that fork for every process it starts (decision 415).
 */
import { execFile } from 'node:child_process';

interface Call {
  id: number;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  maxBuffer: number;
  timeout?: number;
}

process.on('message', (call: Call) => {
  try {
    run(call);
  } catch (error) {
    // Refused before git started (an argument Node will not pass): answered, never the runner's end.
    answer({
      id: call.id,
      stdout: '',
      stderr: '',
      error: { code: null, killed: false, message: (error as Error).message },
    });
  }
});

function run(call: Call): void {
  execFile(
    // Only git: the channel carries the arguments of git calls, never a program to run.
    'git',
    call.args,
    {
      cwd: call.cwd,
      env: call.env,
      maxBuffer: call.maxBuffer,
      ...(call.timeout === undefined ? {} : { timeout: call.timeout, killSignal: 'SIGKILL' as const }),
    },
    (error, stdout, stderr) => {
      const ended =
        error === null
          ? null
          : {
              code: (error as { code?: unknown }).code ?? null,
              killed: error.killed === true,
              message: error.message,
            };
      answer({ id: call.id, stdout, stderr, error: ended });
    },
  );
}
/**
 * Sends on the channel. The supervisor may be gone meanwhile (killed while this started, or while
 * git ran): nobody to answer then, and a send on the closed channel would otherwise be an
 * unhandled error printed into the supervisor's log.
 */
function answer(message: object): void {
  if (process.connected) process.send?.(message, undefined, undefined, () => undefined);
}

// Ends with its supervisor: the channel closes when the supervisor exits, however it exits.
process.on('disconnect', () => process.exit(0));
if (process.connected) answer({ ready: true });
else process.exit(0);
