/**
 * What of the user's own account an agent must not reach from its sandbox (decision 176, "The
 * sandbox hides the user's sessions and secrets, not the tools an agent works with"): the
 * browsers' profiles (their cookies are the user's logins), the keyrings and password stores,
 * the keys and tokens that let a program act as the user elsewhere (ssh, gpg, cloud and GitHub
 * command-line logins, git's stored passwords), and the user's runtime folder — the D-Bus
 * session bus, systemd's user manager (`systemd-run --user` would run a command outside the
 * sandbox), the ssh and gpg agents, the display, a rootless container engine's socket.
 *
 * What an agent legitimately needs stays: git's configuration (`~/.gitconfig`, `~/.config/git`
 * but its `credentials` file), the agent's own login (`~/.claude`, `~/.claude.json`, `~/.codex`),
 * toolchains and package caches (`~/.npm`, `~/.cache`, `~/.cargo`, `~/.rustup`, `~/.local`,
 * `~/.npmrc`, which installs from a private registry need). Pushing and fetching are Baton's
 * (outside the sandbox), so an agent needs no ssh key.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

/** Folders under the user's home hidden from the agent, when they exist. */
export const HIDDEN_USER_FOLDERS = [
  // Browsers' profiles: cookies, saved passwords, sessions.
  '.mozilla',
  '.librewolf',
  '.waterfox',
  '.config/google-chrome',
  '.config/google-chrome-beta',
  '.config/google-chrome-unstable',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  '.var/app/org.mozilla.firefox',
  '.var/app/com.google.Chrome',
  '.var/app/org.chromium.Chromium',
  '.var/app/com.brave.Browser',
  '.var/app/com.microsoft.Edge',
  'snap/firefox',
  'snap/chromium',
  // Mail and chat clients keep logged-in sessions the same way.
  '.thunderbird',
  '.config/Slack',
  '.config/discord',
  // Keyrings, password stores, keys.
  '.local/share/keyrings',
  '.password-store',
  '.gnupg',
  '.ssh',
  '.pki',
  // Logins of command-line tools that act as the user elsewhere.
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.config/gh',
  '.config/hub',
];

/** Files under the user's home read as empty by the agent, when they exist: stored passwords and publishing tokens. */
export const HIDDEN_USER_FILES = [
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
];

/**
 * Variables that lead to the user's desktop session or agents: the session bus, the ssh and gpg
 * agents, the display. Their sockets are hidden too; the variables would only name them.
 */
export const USER_SESSION_VARIABLES = [
  'DBUS_SESSION_BUS_ADDRESS',
  'SSH_AUTH_SOCK',
  'SSH_AGENT_PID',
  'GPG_AGENT_INFO',
  'GNOME_KEYRING_CONTROL',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'XAUTHORITY',
];

/** The user's account as the session host sees it. */
export interface UserAccount {
  /** The user's home (HOME), not Baton's state folder. */
  home: string;
  env: NodeJS.ProcessEnv;
}

/** The user's folders and files the sandbox hides, of those that exist on this machine. */
export function hiddenUserPlaces({ home, env }: UserAccount): { folders: string[]; files: string[] } {
  const folders: string[] = [];
  const files: string[] = [];
  const folder = (path: string | undefined): void => {
    if (path === undefined || !isAbsolute(path) || folders.includes(path)) return;
    if (isFolder(path)) folders.push(path);
  };
  if (isAbsolute(home)) {
    for (const relative of HIDDEN_USER_FOLDERS) folder(join(home, relative));
    for (const relative of HIDDEN_USER_FILES) {
      const path = join(home, relative);
      if (isFile(path)) files.push(path);
    }
  }
  // The runtime folder whole: the D-Bus bus, systemd's private socket, agents, the display.
  folder(env.XDG_RUNTIME_DIR);
  const uid = process.getuid?.();
  if (uid !== undefined) folder(`/run/user/${uid}`);
  // X servers' sockets, and an ssh agent's folder where it is not in the runtime folder (/tmp/ssh-XXXX).
  folder('/tmp/.X11-unix');
  const agent = env.SSH_AUTH_SOCK;
  if (agent !== undefined && isAbsolute(agent)) {
    const parent = dirname(agent);
    if (parent !== '/' && parent !== '/tmp' && dirname(parent) !== '/') folder(parent);
  }
  return { folders, files };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  return existsSync(path) && !isFolder(path);
}
