/**
 * Where the scripted agent is in its script, kept in its state folder after every step so a
 * respawned session resumes there. Rewriting through one open descriptor is ~30× cheaper than
 * writeFileSync's open/truncate/close on some file systems.
 */
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export interface Progress {
  /** Index of the next step of the current turn's step list. */
  step: number;
  /** 0 for the initial script; n for the n-th reply turn. */
  turn: number;
  replies: string[];
  turnDone: boolean;
}

export class ProgressFile {
  private readonly file: string;
  private fd: number | undefined;

  constructor(stateDir: string) {
    mkdirSync(stateDir, { recursive: true });
    this.file = join(stateDir, 'scripted-progress.json');
  }

  /** The saved progress when resuming and there is one; else the start of the script. */
  load(resuming: boolean): Progress {
    return resuming && existsSync(this.file)
      ? (JSON.parse(readFileSync(this.file, 'utf8')) as Progress)
      : { step: 0, turn: 0, replies: [], turnDone: false };
  }

  save(progress: Progress): void {
    this.fd ??= openSync(this.file, 'w');
    const data = Buffer.from(JSON.stringify(progress));
    writeSync(this.fd, data, 0, data.length, 0);
    ftruncateSync(this.fd, data.length);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
