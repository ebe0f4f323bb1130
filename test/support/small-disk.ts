/**
 * A small filesystem of its own (tmpfs) at a folder, to fill up and free again: the full-disk
 * fault. Mounting needs root (CAP_SYS_ADMIN), which the project's machines and CI have; without
 * it the test fails saying so, rather than passing without having tried. Filling writes a
 * ballast file until the kernel says ENOSPC; freeing deletes it.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export class SmallDisk {
  private readonly ballast: string;

  constructor(
    readonly dir: string,
    sizeMb: number,
  ) {
    mkdirSync(dir, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0700`, 'tmpfs', dir], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
    } catch (error) {
      throw new Error(
        `the full-disk test mounts a small tmpfs, which needs root (CAP_SYS_ADMIN); mount said: ${String((error as { stderr?: Buffer }).stderr ?? error)}`,
      );
    }
    this.ballast = join(dir, 'ballast');
  }

  /** Fills the filesystem to the last byte. */
  fill(): void {
    const fd = openSync(this.ballast, 'a');
    const block = Buffer.alloc(1 << 20, 1);
    try {
      for (let size = block.length; size >= 1;) {
        try {
          writeSync(fd, block, 0, size);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
          size = Math.floor(size / 2);
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  freeBytes(): number {
    const stats = statfsSync(this.dir);
    return stats.bavail * stats.bsize;
  }

  free(): void {
    rmSync(this.ballast, { force: true });
  }

  unmount(): void {
    try {
      execFileSync('umount', ['--lazy', this.dir], { stdio: 'ignore' });
    } catch {
      // not mounted (any more)
    }
  }
}
