/**
 * Scripts inside a command: `python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r` and
 * interpreters fed a heredoc. Their text is not shell, so it is scanned for what matters — the
 * shell commands it runs (`os.system`, `subprocess`, `execSync`, …), the folders it deletes
 * (`shutil.rmtree`, `fs.rmSync`, …) and the SQL it executes — and each is handed back as a
 * command the rules judge like any other.
 */
import { basename } from 'node:path';
import { passedDeletes, resolveAliases } from './aliases.js';
import type { Word } from './shell.js';
import { commandsOf, type Command } from './unwrap.js';

/** Interpreters and the flag that introduces an inline script. */
const INLINE_FLAGS: Record<string, string[]> = {
  python: ['-c'],
  node: ['-e', '--eval', '-p', '--print'],
  nodejs: ['-e', '--eval', '-p', '--print'],
  bun: ['-e', '--eval'],
  deno: ['eval'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
};
/** A pseudo-program: SQL a script executes, judged by the SQL rule. */
export const SQL_FROM_SCRIPT = '(sql)';

const SHELL_OUT =
  /\b(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)|execSync|execFileSync|spawnSync|exec|spawn|system|popen|Open3\.\w+|shell_exec|passthru)\s*\(\s*/g;
const DELETE_API =
  /\b(?:shutil\.rmtree|rmtree|remove_tree|rm_rf|rm_r|rimraf(?:\.sync)?|fs\.rmSync|fs\.rm|fs\.promises\.rm|fsp\.rm|rmSync|rmdirSync|FileUtils\.rm_rf|FileUtils\.remove_dir)\s*\(\s*/g;
/** Deleting one file or empty folder: `os.remove`, `fs.unlinkSync`, `File.delete`, Perl's `unlink`. */
const REMOVE_API =
  /(?:\bos\.(?:removedirs|remove|unlink|rmdir)|\bfs\.(?:unlinkSync|unlink|promises\.unlink)|\bunlinkSync|\bFile\.(?:delete|unlink)|\bFileUtils\.(?:rm_f|rm|remove_file|remove)|\bDir\.(?:delete|rmdir|unlink)|(?<![.\w])unlink|\bDeno\.(?:removeSync|remove))\b\s*(?:\(\s*|(?=['"]))/g;
/** `Path('/etc/passwd').unlink()`: the path comes first. */
const PATH_REMOVE =
  /\bPath\s*\(\s*('(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")\s*\)\s*\.\s*(?:unlink|rmdir)\s*\(/g;
/** Moving a path away: the source is gone from where it was (judged like a delete). */
const MOVE_API =
  /\b(?:shutil\.move|os\.rename|os\.replace|fs\.renameSync|fs\.rename|fs\.promises\.rename|renameSync|File\.rename|FileUtils\.mv|FileUtils\.move)\s*\(\s*/g;
const DB_CALL = /\b(?:execute|executescript|executemany|query|exec|raw|run|prepare|sql)\s*\(/;

/** The interpreter's inline script, if the command runs one. */
export function inlineScript(command: Command): string | undefined {
  const name = basename(command.name).replace(/[0-9.]+$/, '');
  const flags = INLINE_FLAGS[name];
  if (flags === undefined) return undefined;
  const index = command.args.findIndex(
    (a) =>
      flags.includes(a.text) ||
      flags.some(
        (f) =>
          f.startsWith('-') &&
          f.length === 2 &&
          a.text.startsWith(f) &&
          a.text.length > 2 &&
          !a.text.startsWith('--'),
      ),
  );
  // Perl's and Ruby's bundled switches end in the script's flag: `perl -ne '…'`, `ruby -pe '…'`.
  const bundled =
    name === 'perl' || name === 'ruby' ? command.args.findIndex((a) => /^-[a-zA-Z]+[eE]$/.test(a.text)) : -1;
  if (index < 0 && bundled >= 0) return command.args[bundled + 1]?.text;
  if (index >= 0) {
    const flag = command.args[index] as Word;
    const glued = flags.includes(flag.text) ? undefined : flag.text.slice(2);
    return glued ?? command.args[index + 1]?.text;
  }
  // `python3 <<EOF … EOF`, `node < script` piped from echo: the script arrives on stdin.
  const file = command.args.find((a) => !a.text.startsWith('-'));
  return file === undefined ? command.stdin : undefined;
}

/** The commands, deletes and SQL an inline script would run, as commands the rules judge. */
export function inlineCommands(command: Command, home: string, depth: number): Command[] {
  const written = inlineScript(command);
  if (written === undefined) return [];
  // Renamed functions and modules written out in full, so the detectors below see them.
  const script = resolveAliases(written);
  const via = [...command.via, `${command.name} script`];
  const base: Omit<Command, 'name' | 'args'> = {
    redirects: [],
    stdinUnknown: false,
    cwd: command.cwd,
    moreArgs: false,
    via,
  };
  const out: Command[] = [];
  for (const argument of callArguments(script, SHELL_OUT)) {
    if (argument.list !== undefined)
      out.push({ ...base, name: argument.list[0] ?? '', args: argument.list.slice(1).map(known) });
    else if (argument.text !== undefined)
      out.push(...commandsOf(argument.text, command.cwd ?? '/', home, depth + 1, via));
    else out.push({ ...base, name: 'sh', args: [known('-c'), unknownWord()], moreArgs: true });
  }
  for (const argument of callArguments(script, DELETE_API)) {
    out.push({
      ...base,
      name: 'rm',
      args: [known('-r'), argument.text === undefined ? unknownWord() : known(argument.text)],
    });
  }
  for (const argument of callArguments(script, REMOVE_API))
    out.push({
      ...base,
      name: 'rm',
      args: [argument.text === undefined ? unknownWord() : known(argument.text)],
    });
  // A deleting function handed on: the paths it gets are only known when it runs.
  if (passedDeletes(script)) out.push({ ...base, name: 'rm', args: [known('-r'), unknownWord()] });
  for (const match of script.matchAll(PATH_REMOVE))
    out.push({ ...base, name: 'rm', args: [known(unquote(match[1] ?? "''"))] });
  for (const argument of callArguments(script, MOVE_API))
    out.push({
      ...base,
      name: 'mv',
      args: [argument.text === undefined ? unknownWord() : known(argument.text), known('.')],
    });
  if (DB_CALL.test(script)) {
    for (const literal of stringLiterals(script))
      out.push({ ...base, name: SQL_FROM_SCRIPT, args: [known(literal)] });
  }
  return out;
}

interface CallArgument {
  /** The first argument when it is a string literal. */
  text?: string | undefined;
  /** The first argument when it is a list of string literals (`["rm", "-rf", "/"]`). */
  list?: string[] | undefined;
}

function callArguments(script: string, pattern: RegExp): CallArgument[] {
  const out: CallArgument[] = [];
  for (const match of script.matchAll(pattern)) {
    const rest = script.slice((match.index ?? 0) + match[0].length);
    const literal = leadingLiteral(rest);
    if (literal !== undefined) {
      out.push({ text: literal });
      continue;
    }
    if (rest.startsWith('[')) {
      const close = rest.indexOf(']');
      const items = close < 0 ? [] : stringLiterals(rest.slice(1, close));
      if (items.length > 0) {
        out.push({ list: items });
        continue;
      }
    }
    out.push({});
  }
  return out;
}

const LITERAL =
  /^(?:[rbuf]{0,2})('''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)/;

function leadingLiteral(text: string): string | undefined {
  const match = LITERAL.exec(text);
  if (match === null) return undefined;
  const quoted = match[1] ?? '';
  // A template literal with `${…}` is only known at run time.
  if (quoted.startsWith('`') && quoted.includes('${')) return undefined;
  return unquote(quoted);
}

function stringLiterals(text: string): string[] {
  const out: string[] = [];
  const pattern = /'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
  for (const match of text.matchAll(pattern)) out.push(unquote(match[0]));
  return out;
}

function unquote(quoted: string): string {
  const triple = quoted.startsWith("'''") || quoted.startsWith('"""');
  const inner = triple ? quoted.slice(3, -3) : quoted.slice(1, -1);
  return inner.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c));
}

function known(text: string): Word {
  return { text, dynamic: false, glob: false };
}

function unknownWord(): Word {
  return { text: '\u0000', dynamic: true, glob: false };
}
