/**
 * Programs that run a command once per item: `xargs` (per line or word it is given), `parallel`
 * (per `:::` item) and `find -exec` (per match). The command is read with the items put in when
 * the script says what they are, and with the unknown part marked when it does not.
 */
import { UNKNOWN, type SimpleCommand, type Word } from './shell.js';
import { known, skipOptions, type Command, type Reader } from './command.js';

/** How many items of a known input an `xargs -I` is judged for, one command each. */
const XARGS_ITEMS = 32;

/**
 * `xargs [options] command…`: the command with the items it is given. When the script says what
 * is piped in (`printf "/\n" | xargs -I{} rm -rf {}`) the items are put in; otherwise `-I`'s
 * placeholder and the added arguments are only known at run time.
 */
export function xargs(
  simple: SimpleCommand,
  args: Word[],
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
  read: Reader,
): Command[] {
  let replace: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const text = args[i]?.text ?? '';
    if (text === '--') {
      i++;
      break;
    }
    if (!text.startsWith('-') || text === '-') break;
    if (text === '-I' || text === '--replace') replace = args[++i]?.text ?? '{}';
    else if (text === '-i') replace = '{}';
    else if (text.startsWith('-I')) replace = text.slice(2);
    else if (text.startsWith('--replace=')) replace = text.slice('--replace='.length);
    else if (text.startsWith('-i')) replace = text.slice(2);
    else if (XARGS_VALUE.has(text)) i++;
  }
  const rest = args.slice(i);
  const inner = rest.length === 0 ? [known('echo')] : rest;
  const chain = [...via, 'xargs'];
  const stdin = simple.stdin;
  const again = (words: Word[], more: boolean): Command[] =>
    read
      .words({ ...simple, words, stdin: undefined, stdinUnknown: false, cwd }, home, depth + 1, chain)
      .map((c) => ({ ...c, moreArgs: c.moreArgs || more }));
  if (replace !== undefined) {
    const marker = replace;
    if (stdin === undefined)
      return again(
        inner.map((w) =>
          w.text.includes(marker) ? { ...w, text: w.text.replaceAll(marker, UNKNOWN), dynamic: true } : w,
        ),
        false,
      );
    const items = stdin
      .split('\n')
      .filter((line) => line.trim() !== '')
      .slice(0, XARGS_ITEMS);
    return items.flatMap((item) =>
      again(
        inner.map((w) => (w.text.includes(marker) ? { ...w, text: w.text.replaceAll(marker, item) } : w)),
        false,
      ),
    );
  }
  if (stdin === undefined) return again(inner, true);
  const items = stdin.split(/\s+/).filter((item) => item !== '');
  return again([...inner, ...items.map(known)], false);
}

const XARGS_VALUE = new Set([
  '-L',
  '-n',
  '-P',
  '-s',
  '-d',
  '-E',
  '-a',
  '--max-args',
  '--max-procs',
  '--delimiter',
  '--arg-file',
  '--max-lines',
]);

/** `parallel [options] command ::: items`: the command once per item ({} replaced, or appended). */
export function parallel(
  simple: SimpleCommand,
  args: Word[],
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
  read: Reader,
): Command[] {
  const rest = skipOptions(
    args,
    new Set(['-j', '-S', '--jobs', '--sshlogin', '-a', '--arg-file', '--delay', '--joblog']),
  );
  const sep = rest.findIndex((a) => a.text === ':::' || a.text === '::::' || a.text === ':::+');
  const words = sep < 0 ? rest : rest.slice(0, sep);
  const items =
    sep < 0 || rest[sep]?.text === '::::'
      ? undefined
      : rest.slice(sep + 1).filter((a) => !a.text.startsWith(':::'));
  const chain = [...via, 'parallel'];
  const run = (item: Word): Command[] => {
    const has = words.some((w) => w.text.includes('{}'));
    const filled = has
      ? words.map((w) =>
          w.text.includes('{}')
            ? { ...w, text: w.text.replaceAll('{}', item.text), dynamic: w.dynamic || item.dynamic }
            : w,
        )
      : [...words, item];
    if (filled.some((w) => w.dynamic))
      return read.words(
        { ...simple, words: filled, stdin: undefined, stdinUnknown: false, cwd },
        home,
        depth + 1,
        chain,
      );
    // parallel hands its command line to a shell.
    return read.script(filled.map((w) => w.text).join(' '), cwd ?? '/', home, depth + 1, chain);
  };
  if (items === undefined || items.length === 0)
    return run({ text: UNKNOWN, dynamic: true, glob: false }).map((c) => ({ ...c, moreArgs: true }));
  return items.slice(0, XARGS_ITEMS).flatMap(run);
}

/** `find … -exec rm -rf {} \;`: the command run on each match, with `{}` unknown. */
export function findExec(find: Command, home: string, depth: number, read: Reader): Command[] {
  const out: Command[] = [];
  const args = find.args;
  for (let i = 0; i < args.length; i++) {
    const flag = args[i]?.text;
    if (flag !== '-exec' && flag !== '-execdir' && flag !== '-ok' && flag !== '-okdir') continue;
    const end = args.findIndex((a, j) => j > i && (a.text === ';' || a.text === '+'));
    // `{}` is some entry below one of find's starting points: one command per starting point.
    for (const root of findRoots(args)) {
      const inner = args
        .slice(i + 1, end < 0 ? undefined : end)
        .map((w) =>
          w.text === '{}'
            ? { text: `${root.text.replace(/\/+$/, '')}/*`, dynamic: root.dynamic, glob: true }
            : w,
        );
      const simple: SimpleCommand = { words: inner, redirects: [], stdinUnknown: false, cwd: find.cwd };
      out.push(...read.words(simple, home, depth + 1, [...find.via, `find ${flag}`]));
    }
    if (end < 0) break;
    i = end;
  }
  return out;
}

/** find's starting points: the operands before the first test or action (`.` when none). */
export function findRoots(args: Word[]): Word[] {
  const first = args.findIndex(
    (a) => !a.dynamic && (a.text.startsWith('-') || a.text === '!' || a.text === '('),
  );
  const roots = first < 0 ? args : args.slice(0, first);
  return roots.length === 0 ? [{ text: '.', dynamic: false, glob: false }] : roots;
}
