/**
 * Installs Debian's libfaketime for the clock-jump test (test/cli/clock-jump.test.ts) when it is
 * missing and this runs as root with apt-get, as `npm test` does before vitest. Without root it
 * prints the one command to run and leaves the test to fail saying the same.
 *
 * Plain JavaScript: it runs before anything is compiled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import process from 'node:process';

const LIBRARIES = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/faketime/libfaketimeMT.so.1',
];

if (!LIBRARIES.some((path) => existsSync(path))) {
  if (process.getuid?.() !== 0) {
    process.stderr.write(
      'libfaketime is missing (the clock-jump test needs it); run: sudo apt-get install faketime\n',
    );
  } else {
    process.stdout.write(
      "Installing Debian's faketime for the clock-jump test (apt-get install -y faketime)...\n",
    );
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    for (const args of [['update'], ['install', '-y', 'faketime']]) {
      const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'inherit', 'inherit'] });
      if (result.status !== 0) {
        process.stderr.write(
          `apt-get ${args.join(' ')} failed (${result.status ?? result.error?.message}); the clock-jump test will say what is missing\n`,
        );
        break;
      }
    }
  }
}
