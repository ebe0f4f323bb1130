/** Rules about files and disks: recursive deletes, writes outside the worktree, disk-level commands. */
import {
  absolute,
  HARMLESS_DEVICES,
  isDisk,
  throughLinks,
  userPlaceAt,
  whereIs,
  type Where,
} from './paths.js';
import type { Word } from './shell.js';
import type { CommandRule, Finding, RuleContext } from './types.js';
import type { Command } from './command.js';
import { findRoots } from './per-item.js';

export const RECURSIVE_DELETE = 'recursive-delete';
export const WRITE_OUTSIDE = 'write-outside';
export const DISK = 'disk';

const recursiveDelete: CommandRule = {
  id: RECURSIVE_DELETE,
  title: 'recursive deletes outside the worktree, or of the worktree or repository itself',
  action: 'block',
  suggest: 'delete inside the worktree, by a relative path (rm -rf build/)',
  check(command, context) {
    const targets = deleteTargets(command);
    if (targets === undefined) return undefined;
    if (targets.length === 0 && command.moreArgs)
      return uncertain(RECURSIVE_DELETE, `${command.name} deletes paths only known at run time`);
    const verb = command.name === 'mv' ? 'moves away' : 'deletes';
    return worst(targets, command.cwd, context, RECURSIVE_DELETE, false, (where, path) => {
      if (where === 'user') return `${verb} ${path}, ${userWhat(path, context)}`;
      if (command.name === 'mv' && where === 'outside') return `moves ${path} away, outside the worktree`;
      if (where === 'worktree') return `${verb} the whole worktree (${path})`;
      if (where === 'repository') return `deletes the repository's git data (${path})`;
      if (where === 'outside') return `deletes ${path}, outside the worktree`;
      return undefined;
    });
  },
};

/** The paths a command deletes recursively; undefined when it deletes nothing recursively. */
function deleteTargets(command: Command): Word[] | undefined {
  const { name, args } = command;
  if (name === 'rm') {
    const operands = operandsOf(args);
    const recursive = args.some((a) => /^-[a-zA-Z]*[rR]/.test(a.text) || a.text === '--recursive');
    return recursive ? operands : undefined;
  }
  if (name === 'find') {
    const deletes = args.some((a) => a.text === '-delete');
    if (!deletes) return undefined;
    // find deletes what is below its starting points: `find . -delete` empties the worktree, `find .. -delete` more.
    return findRoots(args).map((root) => ({
      text: `${root.text.replace(/\/+$/, '')}/*`,
      dynamic: root.dynamic,
      glob: true,
    }));
  }
  if (name === 'rmtree' || name === 'rimraf' || name === 'del-cli') return operandsOf(args);
  // A move leaves nothing where its sources were: judged like deleting them.
  if (name === 'mv') {
    const operands = operandsOf(args);
    const dir = args.findIndex((a) => a.text === '-t' || a.text === '--target-directory');
    return dir >= 0 ? operands.filter((w) => w !== args[dir + 1]) : operands.slice(0, -1);
  }
  // rsync --delete empties what its destination holds beyond the source.
  if (name === 'rsync' && args.some((a) => /^--(delete|remove-source-files)/.test(a.text))) {
    const operands = operandsOf(args);
    const removesSources = args.some((a) => a.text === '--remove-source-files');
    return removesSources ? operands : operands.slice(-1);
  }
  return undefined;
}

/** What a user's place is, for a reason: `the repository's main checkout`. */
function userWhat(shown: string, context: RuleContext): string {
  // A pattern (`/tmp/*`) is judged by the folder it lies in.
  const path = shown.replace(/\/[^/]*[*?[][^/]*$/, '') || '/';
  const place = userPlaceAt(path, context);
  if (place === undefined) return 'a place of the user';
  if (place.path === path) return place.what;
  return path.startsWith(`${place.path}/`) ? `inside ${place.what}` : `which holds ${place.what}`;
}

const writeOutside: CommandRule = {
  id: WRITE_OUTSIDE,
  title: 'writes outside the worktree (commands and file edits)',
  action: 'ask',
  suggest: 'write inside the worktree, or in the temporary folder',
  check(command, context) {
    const targets = writeTargets(command);
    // A write goes where a link leads; removing, moving or replacing one acts on the link itself.
    const follow = !ON_THE_LINK.has(command.name);
    return worst(targets, command.cwd, context, WRITE_OUTSIDE, follow, (where, path) => {
      if (where === 'user') return `writes ${path}, ${userWhat(path, context)}`;
      // The worktree's `.git` file, hooks and config: git runs them, and they reach the user's repository.
      if (where === 'repository')
        return `writes ${path}, the repository's git data (hooks and config run code)`;
      return where === 'outside' && !HARMLESS_DEVICES.has(path) && !isDisk(path)
        ? `writes ${path}, outside the worktree`
        : undefined;
    });
  },
};

/** Programs that act on a symbolic link itself, not on what it points to (decision 399). */
const ON_THE_LINK = new Set(['rm', 'unlink', 'rmdir', 'mv', 'ln']);

/** Programs that write the files named by their operands (all of them, or the last one). */
const WRITES_ALL = new Set([
  'touch',
  'mkdir',
  'rm',
  'rmdir',
  'tee',
  'truncate',
  'chmod',
  'chown',
  'chgrp',
  'shred',
  'unlink',
]);
const WRITES_LAST = new Set(['cp', 'mv', 'ln', 'install', 'rsync', 'scp']);

export function writeTargets(command: Command): Word[] {
  const targets = command.redirects
    .filter((r) => ['>', '>>', '>|', '&>', '&>>', '<>'].includes(r.op))
    .map((r) => r.target);
  const { name, args } = command;
  const operands = operandsOf(args);
  // A recursive rm is the recursive-delete rule's: judged once, there (so is what a move takes away).
  if (name === 'rm' && deleteTargets(command) !== undefined) return targets;
  if (name === ':' || name === 'exec') return targets;
  if (WRITES_ALL.has(name))
    targets.push(
      ...(name === 'chmod' || name === 'chown' || name === 'chgrp' ? operands.slice(1) : operands),
    );
  else if (WRITES_LAST.has(name)) {
    const dir = args.findIndex((a) => a.text === '-t' || a.text === '--target-directory');
    const target = dir >= 0 ? args[dir + 1] : operands.length > 1 ? operands[operands.length - 1] : undefined;
    if (target !== undefined) targets.push(target);
  } else if (
    name === 'sed' &&
    args.some((a) => /^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith('--in-place'))
  )
    targets.push(...operands.slice(1));
  else if (name === 'dd') targets.push(...ddOutputs(args));
  else targets.push(...unpackTargets(name, args));
  return targets;
}

/**
 * Where an archive or a patch is unpacked: `tar -x -C DIR`, `unzip -d DIR`, `patch -d DIR` write
 * over the files there (the current folder when none is named), as `cp` onto them would
 * (decision 398, "Unpacking into a folder is writing there").
 */
function unpackTargets(name: string, args: Word[]): Word[] {
  const valueOf = (short: string, long: string): Word | undefined => {
    for (let i = 0; i < args.length; i++) {
      const text = args[i]?.text ?? '';
      if (text === short || text === long) return args[i + 1];
      if (text.startsWith(`${long}=`)) return { ...(args[i] as Word), text: text.slice(long.length + 1) };
      if (short.length === 2 && text.startsWith(short) && text.length > 2 && !text.startsWith('--'))
        return { ...(args[i] as Word), text: text.slice(2) };
    }
    return undefined;
  };
  const here: Word = { text: '.', dynamic: false, glob: false };
  if (name === 'tar' || name === 'bsdtar' || name === 'gtar') {
    const first = args[0]?.text ?? '';
    const extracts =
      /^[a-zA-Z]*x/.test(first) ||
      args.some((a) => /^-[a-zA-Z]*x/.test(a.text) || a.text === '--extract' || a.text === '--get');
    return extracts ? [valueOf('-C', '--directory') ?? here] : [];
  }
  if (name === 'unzip') {
    const lists = args.some((a) => /^-[a-zA-Z]*[lptvZ]/.test(a.text));
    return lists ? [] : [valueOf('-d', '--d') ?? here];
  }
  if (name === 'patch') {
    const dry = args.some((a) => a.text === '--dry-run' || a.text === '-C' || a.text === '--check');
    if (dry) return [];
    const output = valueOf('-o', '--output');
    return [output ?? valueOf('-d', '--directory') ?? here];
  }
  return [];
}

const disk: CommandRule = {
  id: DISK,
  title: 'disk-level commands (mkfs, dd to a device, partitioning, wiping)',
  action: 'block',
  suggest: 'write an image file inside the worktree (dd of=./disk.img)',
  check(command) {
    const { name, args } = command;
    const listing = args.some((a) => a.text === '-l' || a.text === '--list' || a.text === 'print');
    if (
      /^(mkfs(\..+)?|mke2fs|mkswap|mkdosfs|fdisk|sfdisk|gdisk|cfdisk|sgdisk|parted|wipefs|blkdiscard)$/.test(
        name,
      ) &&
      !listing
    )
      return { rule: DISK, why: `${name} works on whole disks or partitions` };
    if ((name === 'zpool' || name === 'zfs') && args[0]?.text === 'destroy')
      return { rule: DISK, why: `${name} destroy removes storage` };
    if (/^(lvremove|vgremove|pvremove)$/.test(name)) return { rule: DISK, why: `${name} removes volumes` };
    if (name === 'cryptsetup' && args.some((a) => a.text === 'luksFormat' || a.text === 'erase'))
      return { rule: DISK, why: 'cryptsetup formats a device' };
    if (
      name === 'hdparm' &&
      args.some((a) => a.text.startsWith('--security-erase') || a.text === '--trim-sector-ranges')
    )
      return { rule: DISK, why: 'hdparm erases a disk' };
    const devices = [
      ...(name === 'dd' ? ddOutputs(args) : []),
      ...(name === 'shred' ? operandsOf(args) : []),
      ...command.redirects.filter((r) => r.op.includes('>')).map((r) => r.target),
    ];
    const device = devices.find((d) => !d.dynamic && isDisk(d.text));
    if (device !== undefined) return { rule: DISK, why: `writes the device ${device.text}` };
    return undefined;
  },
};

function ddOutputs(args: Word[]): Word[] {
  return args.filter((a) => a.text.startsWith('of=')).map((a) => ({ ...a, text: a.text.slice(3) }));
}

/** Arguments that are not options (after `--`, everything). */
export function operandsOf(args: Word[]): Word[] {
  const end = args.findIndex((a) => a.text === '--');
  const before = (end < 0 ? args : args.slice(0, end)).filter(
    (a) => !(a.text.startsWith('-') && a.text !== '-' && !a.dynamic),
  );
  return end < 0 ? before : [...before, ...args.slice(end + 1)];
}

/** The worst place among the targets: a definite hit, else an uncertain one. */
function worst(
  targets: Word[],
  cwd: string | undefined,
  context: RuleContext,
  rule: string,
  follow: boolean,
  why: (where: Where, path: string) => string | undefined,
): Finding | undefined {
  let unknown: string | undefined;
  for (const target of targets) {
    const where = whereIs(target, cwd, context, follow);
    if (where === 'unknown') {
      unknown ??= target.dynamic
        ? `the path ${display(target)} is only known at run time`
        : `the gate cannot tell whether ${display(target)} holds another repository (too large to search)`;
      continue;
    }
    const path = absolute({ ...target, dynamic: false }, cwd) ?? display(target);
    // Named through a link the agent made: the reason names where it leads (decision 399).
    const glob = target.glob ? path.replace(/\/[^/]*[*?[][^/]*$/, '') : path;
    const real = throughLinks(glob, follow || target.glob || /(^|\/)\.\.?$|\/$/.test(target.text), context);
    const reason = why(where, real === glob ? path : real);
    if (reason !== undefined)
      return {
        rule,
        why: real === glob ? reason : `${reason} (${path} leads there through a symbolic link)`,
      };
  }
  return unknown === undefined ? undefined : uncertain(rule, unknown);
}

function uncertain(rule: string, why: string): Finding {
  return { rule, why, uncertain: true };
}

export function display(word: Word): string {
  return word.text.replaceAll('\u0000', '$…');
}

export const FILE_RULES: CommandRule[] = [recursiveDelete, writeOutside, disk];
