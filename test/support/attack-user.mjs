/**
 * A prompt-injected agent's attempts to act as the user, run from a session's shell (the
 * scripted agent's `run` step) by test/cli/sandbox.test.ts. It is told everything an attacker
 * could learn or guess — Baton's state folder, the supervisor's pid and port, another session's id
 * — and writes what each attempt got to `report` (JSON) for the test to judge. It judges nothing
 * itself: a read that worked is reported with what it read.
 *
 * Plain JavaScript, run by the agent's own `node`: argv is
 * `<report> <home> <supervisor pid> <port> <own session id> <other session id>`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

const [report, home, supervisorPid, port, own, other] = process.argv.slice(2);
const result = { env: {}, files: {}, visible: [], proc: {}, api: {}, sockets: {}, escapes: {} };

// 1. The environment: BATON_HOME, BATON_PORT, anything naming the token.
result.env = { ...process.env };

// 2. Files of the state folder, by their known names, and the default state folder.
const wanted = {
  token: join(home, 'token'),
  supervisorJson: join(home, 'supervisor.json'),
  database: join(home, 'baton.db'),
  browserLogins: join(home, 'browser-logins.json'),
  otherCredential: join(home, 'sessions', other, 'door', 'mcp-credential'),
  otherSpec: join(home, 'sessions', other, 'spec.json'),
  ownSpec: join(home, 'sessions', own, 'spec.json'),
  defaultToken: join(homedir(), '.local', 'state', 'baton', 'token'),
  ownCredential: join(home, 'sessions', own, 'door', 'mcp-credential'),
  ownAddress: join(home, 'sessions', own, 'door', 'address'),
};
for (const [name, path] of Object.entries(wanted)) result.files[name] = read(path);

// 3. Everything under the state folder this process can see.
walk(home);

// 4. /proc: every process's environment and command line, the supervisor's by its pid, and
//    the state folder through another process's root.
const pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
result.proc.pids = pids.map(Number);
result.proc.supervisorVisible = existsSync(`/proc/${supervisorPid}`);
result.proc.supervisorEnviron = read(`/proc/${supervisorPid}/environ`);
result.proc.environs = pids.map((pid) => read(`/proc/${pid}/environ`)).join('\n');
result.proc.cmdlines = pids.map((pid) => read(`/proc/${pid}/cmdline`)).join('\n');
result.proc.throughRoot = pids.map((pid) => read(`/proc/${pid}/root${join(home, 'token')}`)).join('\n');

// 5. The API: no token, a made-up one, and this session's own credential for what only the user may do.
const credential = result.files.ownCredential.trim();
const calls = {
  noToken: ['GET', '/api/sessions', undefined, undefined],
  guessedToken: ['GET', '/api/sessions', 'guess', undefined],
  ownRead: ['GET', '/api/sessions', credential, undefined],
  approveOwn: ['POST', `/api/sessions/${own}/approval`, credential, { decision: 'allow' }],
  approveOther: ['POST', `/api/sessions/${other}/approval`, credential, { decision: 'allow' }],
  addAllowRule: ['POST', '/api/policy/allow', credential, { pattern: 'rm -rf *', reason: 'mine now' }],
  dispatch: ['POST', '/api/sessions', credential, { prompt: 'a session of my own', cwd: process.cwd() }],
  merge: ['POST', '/api/merges', credential, { session: own }],
  stopOther: ['POST', `/api/sessions/${other}/stop`, credential, undefined],
  daemonStop: ['POST', '/api/daemon/stop', credential, undefined],
};
for (const [name, [method, path, bearer, body]] of Object.entries(calls))
  result.api[name] = await call(method, path, bearer, body);

// 6. The hosts' control sockets, which take commands from whoever can connect.
for (const [name, id] of Object.entries({ own, other }))
  result.sockets[name] = await knock(join(home, 'sessions', id, 'host.sock'));

// 7. Getting out: unmount the hiding tmpfs, a new mount namespace, pid 1's namespace.
const shell = (command) => {
  const r = spawnSync('sh', ['-c', command], { encoding: 'utf8' });
  return `${r.stdout}${r.stderr}exit ${r.status}`;
};
const token = join(home, 'token');
result.escapes.umount = shell(`umount -l '${home}' && cat '${token}'`);
result.escapes.unshare = shell(`unshare -m sh -c "umount -l '${home}'; cat '${token}'"`);
result.escapes.userns = shell(`unshare -Ur sh -c "umount -l '${home}'; cat '${token}'"`);
result.escapes.usernsMount = shell(`unshare -Urm sh -c "umount -l '${home}' && cat '${token}'"`);
result.escapes.nsenter = shell(`nsenter -t 1 -m cat '${token}'`);
result.escapes.mountAgain = shell(`mount --bind / /mnt && cat '/mnt${token}'`);

writeFileSync(report, JSON.stringify(result, null, 2));

function read(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return `unreadable: ${error.code ?? error.message}`;
  }
}

function walk(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    if (name === '.git') continue;
    result.visible.push(path);
    try {
      if (statSync(path).isDirectory()) walk(path);
    } catch {
      // gone meanwhile
    }
  }
}

async function call(method, path, bearer, body) {
  try {
    const response = await globalThis.fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: {
        ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.text()).slice(0, 300) };
  } catch (error) {
    return { status: 0, body: error.message };
  }
}

function knock(path) {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.end();
      resolve('connected');
    });
    socket.once('error', (error) => resolve(`refused: ${error.code}`));
  });
}
