/**
 * The receiving side of Baton's own pushes and fetches when the other repository is on this
 * machine. For a path or a `file://` URL git starts the other side itself (`git-receive-pack`,
 * `git-upload-pack`), as the user, outside any sandbox, with that repository's own settings: its
 * hooks (`pre-receive`, `update`, `post-receive`, `reference-transaction`), its
 * `core.hooksPath` and `core.alternateRefsCommand`. Git drops the command line's settings
 * (`GIT_CONFIG_PARAMETERS`) before starting it, so the guard's overrides do not reach it. An agent
 * that points a remote at a repository of its own making, or writes a hook into the user's local
 * bare repository, would have Baton run its program as the user.
 *
 * For a remote on this machine the program Baton names is git's own with the overrides on its
 * own command line, where git does read them. Over ssh the program is the remote host's business
 * (and hosts accept only the plain name), so it stays `git-receive-pack`. Decision 274, "Baton's
 * pushes to a repository on this machine run none of its hooks".
 */

/** Settings of the receiving side that would run a program of the other repository's choosing. */
const RECEIVING = '-c core.hooksPath=/dev/null -c core.alternateRefsCommand=true -c receive.autogc=false';

/** The programs for each side, when the other repository is on this machine. */
export const LOCAL_RECEIVE_PACK = `git ${RECEIVING} receive-pack`;
export const LOCAL_UPLOAD_PACK = `git ${RECEIVING} upload-pack`;

export interface ConfigEntry {
  key: string;
  value: string;
}

/** Whether git reaches this URL through its local transport (a path or `file://`), not ssh or http. */
export function isLocalUrl(url: string): boolean {
  if (/^file:\/\//i.test(url)) return true;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return false;
  // scp-like `host:path` (a colon before any slash) is ssh; anything else is a path.
  const colon = url.indexOf(':');
  const slash = url.indexOf('/');
  return !(colon > 0 && (slash === -1 || colon < slash));
}

/**
 * Every URL git might use for `target` (a remote's name, or a URL or path as given): the remote's
 * `url` and, for a push, its `pushurl` values, each as written and as the longest matching
 * `url.<base>.insteadOf` or `pushInsteadOf` rewrites it. More than git would pick, on purpose: a
 * remote is taken for local when any of them is, and the worst a wrong guess does is a push over
 * ssh refused for its program's name.
 */
export function urlsFor(target: string, entries: readonly ConfigEntry[], push: boolean): string[] {
  const remoteKey = (name: string) => `remote.${target}.${name}`.toLowerCase();
  const named = (name: string) =>
    entries.filter((e) => e.key.toLowerCase() === remoteKey(name)).map((e) => e.value);
  const written = [...named('url'), ...(push ? named('pushurl') : [])];
  const given = written.length === 0 ? [target] : written;
  return given.flatMap((url) => [
    url,
    rewrite(url, entries, 'insteadof'),
    ...(push ? [rewrite(url, entries, 'pushinsteadof')] : []),
  ]);
}

function rewrite(url: string, entries: readonly ConfigEntry[], kind: 'insteadof' | 'pushinsteadof'): string {
  let best: { from: string; to: string } | undefined;
  for (const entry of entries) {
    const match = /^url\.(.*)\.(insteadof|pushinsteadof)$/i.exec(entry.key);
    if (match === null || match[2]!.toLowerCase() !== kind) continue;
    if (url.startsWith(entry.value) && (best === undefined || entry.value.length > best.from.length))
      best = { from: entry.value, to: match[1]! };
  }
  return best === undefined ? url : best.to + url.slice(best.from.length);
}

/** Baton's transport calls name their remote after `--`: the first word after it. */
export function transportTarget(args: readonly string[]): string | undefined {
  const end = args.indexOf('--');
  return end === -1 ? undefined : args[end + 1];
}
