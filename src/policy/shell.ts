/**
 * A command line as the shell would run it: mvdan/sh's parser (decision 80) turns it into a
 * syntax tree, and this file flattens the tree into the simple commands that would run — inside
 * pipes, `&&`/`;` lists, subshells, blocks, loops, functions and command substitutions — each
 * with its words (quotes removed, variables marked as unknown), its redirections, what it reads
 * on stdin when that is known (a heredoc, a here-string, an `echo` piped into it) and the
 * directory it runs in when a `cd` before it changed it.
 *
 * The tree is read through the GopherJS objects underneath mvdan-sh's JavaScript wrapper
 * (`__internal_object__`): the wrapper converts a whole subtree on every property access
 * (~150 µs each, measured), the objects themselves are plain fields (decision 80).
 */
import { createRequire } from 'node:module';
import type sh from 'mvdan-sh';
import type { ShNode, ShParser } from 'mvdan-sh';

/**
 * The parser is ~2 MB of compiled Go: loaded at the first command judged, not with the module, so
 * a supervisor or host that judges no command does not pay its ~90 ms of CPU (decision 272, "The
 * shell parser loads at the first command judged").
 */
let parser: ShParser | undefined;
function shellParser(): ShParser {
  if (parser === undefined) {
    const loaded = createRequire(import.meta.url)('mvdan-sh') as typeof sh;
    parser = loaded.syntax.NewParser();
  }
  return parser;
}

/** One word after quote removal; `dynamic` when part of it is only known at run time (`$X`, `$(…)`). */
export interface Word {
  text: string;
  dynamic: boolean;
  /** An unquoted `*`, `?` or `[` makes it a pattern the shell expands. */
  glob: boolean;
}

export interface Redirect {
  op: string;
  target: Word;
}

export interface SimpleCommand {
  words: Word[];
  redirects: Redirect[];
  /** What the command reads on stdin, when the script itself says (heredoc, here-string, piped echo). */
  stdin?: string | undefined;
  /** Something unknown is piped into it (`curl … | sh`). */
  stdinUnknown: boolean;
  /** The directory it runs in relative to the call's cwd, after `cd`s; undefined when unknowable. */
  cwd: string | undefined;
  /** Variables set for it: its own `GIT_DIR=… git …` prefix and the script's earlier `export`s. */
  env?: string[] | undefined;
  /**
   * Their values, where the script gives one (`NODE_OPTIONS=--require ./x.js node …`): what they
   * make a program load is read like the script itself (scripts.ts, decision 330).
   */
  values?: Record<string, Word> | undefined;
}

export class ShellSyntaxError extends Error {}

/** Placeholder text for the unknown part of a word. */
export const UNKNOWN = '\u0000';

const PIPE = new Set([12, 13]);
const REDIRECT_OPS: Record<number, string> = {
  54: '>',
  55: '>>',
  56: '<',
  57: '<>',
  58: '<&',
  59: '>&',
  60: '>|',
  61: '<<',
  62: '<<-',
  63: '<<<',
  64: '&>',
  65: '&>>',
};

/** The simple commands of a script; throws ShellSyntaxError when it does not parse. */
export function parseCommands(script: string, cwd: string, home: string): SimpleCommand[] {
  let file: ShNode;
  try {
    file = shellParser().Parse(script, '').__internal_object__ as ShNode;
  } catch (error) {
    const text = (error as { Error?: () => string } | null)?.Error?.() ?? String(error);
    throw new ShellSyntaxError(text);
  }
  const out: SimpleCommand[] = [];
  new Flattener(out, home).stmts(list(file.Stmts), { cwd }, undefined);
  return out;
}

interface Scope {
  cwd: string | undefined;
  /** `pushd`'s folders to return to; replaced, never changed in place, so a subshell's copy is its own. */
  stack?: (string | undefined)[];
  /** Names the script exported so far (`export GIT_DIR=…`); replaced, never changed in place. */
  exported?: string[];
  /** The values of those exports the script gives; replaced, never changed in place. */
  exportedValues?: Record<string, Word>;
}

/** Data piped into a statement: its text, or unknown. */
type Piped = { text: string } | 'unknown' | undefined;

class Flattener {
  constructor(
    private readonly out: SimpleCommand[],
    private readonly home: string,
  ) {}

  stmts(stmts: ShNode[], scope: Scope, piped: Piped): void {
    for (const stmt of stmts) this.stmt(stmt, scope, piped);
  }

  private stmt(stmt: ShNode, scope: Scope, piped: Piped): void {
    const cmd = node(stmt.Cmd);
    const redirects = list(stmt.Redirs);
    if (cmd !== undefined) this.command(cmd, scope, piped, redirects);
    // A bare redirection (`> /etc/passwd`) truncates its target: a command with no words.
    else if (redirects.length > 0) this.call({}, scope, piped, redirects);
  }

  private command(cmd: ShNode, scope: Scope, piped: Piped, redirects: ShNode[]): void {
    switch (typeOf(cmd)) {
      case 'CallExpr':
        return this.call(cmd, scope, piped, redirects);
      case 'BinaryCmd': {
        const x = cmd.X as ShNode;
        const y = cmd.Y as ShNode;
        if (PIPE.has(cmd.Op as number)) {
          this.stmt(x, { ...scope }, piped);
          this.stmt(y, { ...scope }, this.output(x));
        } else {
          this.stmt(x, scope, piped);
          this.stmt(y, scope, piped);
        }
        this.nested(redirects, scope);
        return;
      }
      case 'Subshell':
        this.stmts(list(cmd.Stmts), { ...scope }, piped);
        this.nested(redirects, scope);
        return;
      case 'Block':
        this.stmts(list(cmd.Stmts), scope, piped);
        this.nested(redirects, scope);
        return;
      case 'DeclClause':
        // `export GIT_DIR=…` sets it for every later command of the script.
        if (node(cmd.Variant)?.Value === 'export') {
          scope.exported = [...(scope.exported ?? []), ...assignedNames(list(cmd.Args))];
          scope.exportedValues = { ...scope.exportedValues, ...this.assignedValues(list(cmd.Args)) };
        }
        this.inner(cmd, { ...scope });
        this.nested(redirects, scope);
        return;
      default:
        // if/while/for/case/functions/declarations/tests: every statement inside, wherever it is.
        this.inner(cmd, { ...scope });
        this.nested(redirects, scope);
    }
  }

  private call(call: ShNode, scope: Scope, piped: Piped, redirectNodes: ShNode[]): void {
    const words = list(call.Args).map((w) => this.word(w));
    const redirects: Redirect[] = [];
    let stdin: string | undefined = piped !== undefined && piped !== 'unknown' ? piped.text : undefined;
    for (const redirect of redirectNodes) {
      const op = REDIRECT_OPS[redirect.Op as number] ?? '?';
      const hdoc = node(redirect.Hdoc);
      const target = node(redirect.Word);
      if ((op === '<<' || op === '<<-') && hdoc) stdin = this.word(hdoc).text;
      else if (op === '<<<' && target) stdin = this.word(target).text + '\n';
      else if (target) redirects.push({ op, target: this.word(target) });
    }
    for (const assign of list(call.Assigns)) this.inner(assign, scope);
    const env = [...(scope.exported ?? []), ...assignedNames(list(call.Assigns))];
    const values = { ...scope.exportedValues, ...this.assignedValues(list(call.Assigns)) };
    this.out.push({
      ...(env.length > 0 ? { env } : {}),
      ...(Object.keys(values).length > 0 ? { values } : {}),
      words,
      redirects,
      stdin,
      stdinUnknown: piped === 'unknown' && stdin === undefined,
      cwd: scope.cwd,
    });
    for (const w of list(call.Args)) this.inner(w, scope);
    this.nested(redirectNodes, scope);
    const head = words[0];
    if (head === undefined || head.dynamic) return;
    if (head.text === 'cd') scope.cwd = this.cd(scope.cwd, words.slice(1));
    else if (head.text === 'pushd') {
      scope.stack = [...(scope.stack ?? []), scope.cwd];
      scope.cwd = words.length > 1 ? this.cd(scope.cwd, words.slice(1)) : undefined;
    } else if (head.text === 'popd') {
      const stack = scope.stack ?? [];
      scope.cwd = stack.length > 0 ? stack[stack.length - 1] : undefined;
      scope.stack = stack.slice(0, -1);
    }
  }

  /** The text a statement writes to a pipe, when the script says it: `echo`, `printf`, `cat <<EOF`. */
  private output(stmt: ShNode): Piped {
    const cmd = node(stmt.Cmd);
    if (cmd === undefined || typeOf(cmd) !== 'CallExpr') return 'unknown';
    const words = list(cmd.Args).map((w) => this.word(w));
    const name = words[0]?.text;
    if (words.some((w) => w.dynamic)) return 'unknown';
    if (name === 'echo')
      return {
        text:
          words
            .slice(1)
            .filter((w) => !/^-[neE]+$/.test(w.text))
            .map((w) => w.text)
            .join(' ') + '\n',
      };
    // printf's format with its escapes read (`printf "/\n"`), the arguments after it as written.
    if (name === 'printf') {
      const [raw = '', ...rest] = words.slice(1).map((w) => w.text);
      const format = ansiC(raw);
      // The format is applied to each argument in turn (one conversion per use is what agents write).
      const text =
        rest.length === 0
          ? format.replace(/%[sbdq]/g, '')
          : rest.map((arg) => format.replace(/%[sbdq]/, arg).replace(/%[sbdq]/g, '')).join('');
      return { text };
    }
    if (name === 'cat' && words.length === 1) {
      const hdoc = list(stmt.Redirs)
        .map((r) => node(r.Hdoc))
        .find((h) => h !== undefined);
      if (hdoc) return { text: this.word(hdoc).text };
    }
    return 'unknown';
  }

  private cd(cwd: string | undefined, args: Word[]): string | undefined {
    const target = args.find((a) => !a.text.startsWith('-') || a.text === '-');
    if (target === undefined) return this.home;
    if (target.dynamic || target.text === '-' || cwd === undefined) return undefined;
    return joinPath(cwd, target.text);
  }

  /** Statements nested in redirections (`> $(…)`, heredocs with substitutions). */
  private nested(redirects: ShNode[], scope: Scope): void {
    for (const r of redirects) this.inner(r, scope);
  }

  /** Every statement anywhere below a node, each run with its own scope. */
  private inner(start: ShNode, scope: Scope): void {
    const visit = (value: unknown): void => {
      if (isSlice(value)) return list(value).forEach(visit);
      const child = node(value);
      if (child === undefined) return;
      if (typeOf(child) === 'Stmt') return this.stmt(child, { ...scope }, undefined);
      for (const key of Object.keys(child)) if (key !== '$val') visit(child[key]);
    };
    for (const key of Object.keys(start)) if (key !== '$val') visit(start[key]);
  }

  /** The values assignments give (`X=1`, `export X=1`); `X+=…` adds to a value the gate does not know. */
  private assignedValues(assigns: ShNode[]): Record<string, Word> {
    const out: Record<string, Word> = {};
    for (const assign of assigns) {
      const name = node(assign.Name)?.Value;
      const value = node(assign.Value);
      // `export X` (no value) keeps the one it had; arrays are not what these variables hold.
      if (typeof name !== 'string' || (value === undefined && assign.Naked === true)) continue;
      const word = value === undefined ? { text: '', dynamic: false, glob: false } : this.word(value);
      out[name] = assign.Append === true ? { ...word, text: UNKNOWN + word.text, dynamic: true } : word;
    }
    return out;
  }

  word(word: ShNode): Word {
    const out: Word = { text: '', dynamic: false, glob: false };
    list(word.Parts).forEach((part, i) => this.part(part, out, false, i === 0));
    return out;
  }

  private part(part: ShNode, out: Word, quoted: boolean, first: boolean): void {
    switch (typeOf(part)) {
      case 'Lit': {
        let value = text(part.Value);
        if (!quoted && first && (value === '~' || value.startsWith('~/'))) value = this.home + value.slice(1);
        if (!quoted && /[*?[]/.test(value.replace(/\\./g, ''))) out.glob = true;
        out.text += quoted
          ? value.replace(/\\([$`"\\\n])/g, '$1')
          : value.replace(/\\\n/g, '').replace(/\\(.)/g, '$1');
        return;
      }
      case 'SglQuoted': {
        const value = text(part.Value);
        out.text += part.Dollar === true ? ansiC(value) : value;
        return;
      }
      case 'DblQuoted':
        list(part.Parts).forEach((p) => this.part(p, out, true, false));
        return;
      case 'ParamExp': {
        const name = node(part.Param)?.Value;
        const plain =
          [part.Exp, part.Index, part.Slice, part.Repl].every((p) => node(p) === undefined) &&
          part.Length !== true &&
          part.Excl !== true;
        if (plain && name === 'HOME') out.text += this.home;
        else {
          out.text += UNKNOWN;
          out.dynamic = true;
        }
        return;
      }
      default:
        // $(…), `…`, $((…)), <(…), brace expansions: known only when the shell runs it.
        out.text += UNKNOWN;
        out.dynamic = true;
    }
  }
}

/** A Go slice's elements. */
function list(value: unknown): ShNode[] {
  if (!isSlice(value)) return [];
  const { $array, $offset, $length } = value;
  return $array.slice($offset, $offset + $length) as ShNode[];
}

function isSlice(value: unknown): value is { $array: unknown[]; $offset: number; $length: number } {
  return typeof value === 'object' && value !== null && '$array' in value && '$length' in value;
}

/** A syntax node, or undefined for a nil pointer or interface (and for anything that is not a node). */
function node(value: unknown): ShNode | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value.constructor as { string?: unknown; nil?: unknown } | undefined) ?? undefined;
  if (typeof type?.string !== 'string' || !type.string.startsWith('*syntax.') || type.nil === value)
    return undefined;
  return value as ShNode;
}

/** `CallExpr` for a `*syntax.CallExpr`. */
function typeOf(value: ShNode): string {
  return (value.constructor as unknown as { string: string }).string.slice('*syntax.'.length);
}

/** Go strings are byte strings here: non-ASCII text arrives as UTF-8 bytes, one character each. */
function text(value: unknown): string {
  const raw = String(value);
  return /[\x80-\xff]/.test(raw) ? Buffer.from(raw, 'latin1').toString('utf8') : raw;
}

function ansiC(value: string): string {
  const escapes: Record<string, string> = {
    n: '\n',
    t: '\t',
    r: '\r',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '0': '\0',
  };
  return value.replace(/\\(.)/g, (_, c: string) => escapes[c] ?? c);
}

/** `base` joined with `path` (absolute paths win), normalized, without touching the disk. */
/** The variable names of assignments (`X=1`, `export X=1`). */
function assignedNames(assigns: ShNode[]): string[] {
  return assigns.flatMap((a) => {
    const name = node(a.Name)?.Value;
    return typeof name === 'string' ? [name] : [];
  });
}

export function joinPath(base: string, path: string): string {
  const parts = (path.startsWith('/') ? path : `${base}/${path}`).split('/');
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return '/' + out.join('/');
}
