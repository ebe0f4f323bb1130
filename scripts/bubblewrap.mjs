/**
 * Installs Debian's bubblewrap (`bwrap`), the sandbox Baton runs agents in (src/sandbox; the
 * sandbox tests in test/cli/sandbox.test.ts need it), when it is missing and this runs as root
 * with apt-get, as `npm test` does before vitest. Without root it prints the one command to run;
 * Baton itself runs without it, saying plainly that agents are not sandboxed (`baton sandbox`).
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import process from 'node:process';

if (process.platform === 'linux' && spawnSync('bwrap', ['--version'], { stdio: 'ignore' }).status !== 0) {
  if (process.getuid?.() !== 0) {
    process.stderr.write(
      'bubblewrap is missing (agents run unsandboxed, and the sandbox tests fail); run: sudo apt-get install bubblewrap\n',
    );
  } else {
    process.stdout.write(
      "Installing Debian's bubblewrap, the agents' sandbox (apt-get install -y bubblewrap)...\n",
    );
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', 'bubblewrap']]) {
      const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
      if (result.status !== 0) {
        process.stderr.write(
          `apt-get ${args.join(' ')} failed (${result.status ?? result.error?.message}); the sandbox tests will say what is missing\n`,
        );
        break;
      }
    }
  }
}
