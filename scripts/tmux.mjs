/**
 * Installs Debian's tmux for the terminal board's tests (test/cli/board.test.ts drives the board
 * in tmux) when it is missing and this runs as root with apt-get, as `npm test` does before
 * vitest. Without root it prints the one command to run and leaves the tests to fail saying the same.
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import process from 'node:process';

if (spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status !== 0) {
  if (process.getuid?.() !== 0) {
    process.stderr.write(
      'tmux is missing (the terminal board tests need it); run: sudo apt-get install tmux\n',
    );
  } else {
    process.stdout.write(
      "Installing Debian's tmux for the terminal board tests (apt-get install -y tmux)...\n",
    );
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', 'tmux']]) {
      const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
      if (result.status !== 0) {
        process.stderr.write(
          `apt-get ${args.join(' ')} failed (${result.status ?? result.error?.message}); the board tests will say what is missing\n`,
        );
        break;
      }
    }
  }
}
