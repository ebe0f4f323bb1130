/**
 * Another local user, for tests of what Baton shares with the machine (/tmp, abstract sockets).
 * A real user (`baton-intruder`, created when missing and removed again if we created it) when
 * `useradd` and `runuser` exist and we are root; else the current user, with what it creates
 * handed to `nobody` (root may do that), which the checks under test cannot tell apart.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { exitOf, OutputWatcher } from './process.js';

const NAME = 'baton-intruder';
const NOBODY = 65534;

/**
 * Listens on a Unix socket (`@name` for an abstract one) as the other user, first making its
 * folder with `folderMode` when given. It prints what it receives and answers every request
 * `ok`, as a hijacker would; it ends when its stdin closes.
 */
const LISTENER = `
const net = require('node:net'), fs = require('node:fs'), path = require('node:path');
const [where, folderMode] = process.argv.slice(1);
const address = where.startsWith('@') ? '\\0' + where.slice(1) : where;
if (folderMode) {
  fs.mkdirSync(path.dirname(where), { recursive: true });
  fs.chmodSync(path.dirname(where), parseInt(folderMode, 8));
}
const server = net.createServer((c) => {
  c.setEncoding('utf8');
  c.on('error', () => undefined);
  c.on('data', (d) => {
    console.log('received ' + d.trim());
    try { c.write(JSON.stringify({ id: JSON.parse(d).id, ok: true }) + '\\n'); } catch {}
  });
});
server.listen(address, () => console.log('listening'));
process.stdin.on('end', () => { server.close(); process.exit(0); });
process.stdin.resume();
`;

export class Intruder {
  readonly uid: number;
  private readonly real: boolean;
  private readonly created: boolean;
  private readonly children: ChildProcess[] = [];

  constructor() {
    this.real = process.getuid?.() === 0 && hasCommand('useradd') && hasCommand('runuser');
    this.created = this.real && !userExists();
    if (this.created)
      execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', NAME]);
    this.uid = this.real ? Number(execFileSync('id', ['-u', NAME], { encoding: 'utf8' }).trim()) : NOBODY;
  }

  /** Starts the listener as the other user and resolves once it listens; `output` has what it received. */
  async listen(where: string, folderMode?: string): Promise<OutputWatcher> {
    const args = ['-e', LISTENER, where, ...(folderMode === undefined ? [] : [folderMode])];
    const child = this.real
      ? spawn('runuser', ['-u', NAME, '--', process.execPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.children.push(child);
    const output = new OutputWatcher(child.stdout);
    const errors = new OutputWatcher(child.stderr);
    try {
      await output.waitFor(/listening/);
    } catch (error) {
      throw new Error(`the intruder's listener did not start: ${errors.all}`, { cause: error });
    }
    if (!this.real && !where.startsWith('@')) {
      chownSync(dirname(where), NOBODY, NOBODY);
      chownSync(where, NOBODY, NOBODY);
    }
    return output;
  }

  /** Ends the listeners (closing stdin ends them, runuser or not) and removes the user if we made it. */
  async cleanup(): Promise<void> {
    for (const child of this.children) {
      child.stdin?.end();
      await exitOf(child);
    }
    if (this.created) execFileSync('userdel', [NAME]);
  }
}

function hasCommand(command: string): boolean {
  return ['/usr/sbin', '/usr/bin', '/sbin', '/bin'].some((dir) => existsSync(`${dir}/${command}`));
}

function userExists(): boolean {
  try {
    execFileSync('id', ['-u', NAME], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
