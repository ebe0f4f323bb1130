// Ending what a bench section started, before its folder is removed: a supervisor sent SIGTERM
// goes on writing its log and database while it shuts down, and removing the folder under it
// fails (ENOTEMPTY) and fails the section after its figures were printed.

const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** SIGTERM, then waits for the process to exit; SIGKILL after `graceMs`, and waits again. */
export async function endProcess(pid, graceMs = 10_000) {
  for (const signal of ['SIGTERM', 'SIGKILL']) {
    try {
      process.kill(pid, signal);
    } catch {
      return;
    }
    const until = Date.now() + graceMs;
    while (isAlive(pid) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    if (!isAlive(pid)) return;
  }
}
