/** awk programs run shell commands too: `system(…)`, `print … | "…"` and `"…" | getline`. */
import { UNKNOWN, type SimpleCommand, type Word } from './shell.js';
import { command, skipOptions, type Command, type Reader } from './command.js';

export const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'original-awk']);

const AWK_STRING = String.raw`"(?:[^"\\]|\\.)*"`;

/** `system("…")`, `print … | "…"`, `"…" | getline`: a literal string (group 1) or an expression (group 2). */
const AWK_RUNS = [
  new RegExp(String.raw`\bsystem\s*\(\s*(?:(${AWK_STRING})\s*\)|([^)]*))`, 'g'),
  new RegExp(
    String.raw`\bprintf?\b[^;}\n|]*\|&?\s*(?:(${AWK_STRING})\s*(?=[;}\n]|$)|([^|;}\n][^;}\n]*))`,
    'g',
  ),
  new RegExp(String.raw`(?:(${AWK_STRING})|([\w$)\]]+))\s*\|&?\s*getline\b`, 'g'),
];

/**
 * awk's `system(…)` and pipes run shell commands: a literal one is judged as a script; one built
 * at run time (`system("rm -rf " $1)`) is an eval of unknown text.
 */
export function awk(
  simple: SimpleCommand,
  name: string,
  args: Word[],
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
  read: Reader,
): Command[] {
  const rest = skipOptions(args, new Set(['-F', '-v', '-f', '--field-separator', '--assign', '--file']));
  // A program file (`awk -f prog.awk`) is read where scripts are (scripts.ts).
  if (args.some((a) => a.text === '-f' || a.text === '--file' || /^(-f.|--file=)/.test(a.text))) return [];
  return awkProgram(rest[0]?.text ?? '', rest[0]?.dynamic ?? false, name, home, depth, via, cwd, read).map(
    (c) => ({ ...c, env: c.env ?? simple.env }),
  );
}

/** The commands an awk program runs (its `system(…)`, pipes and `getline`), inline or read from its file. */
export function awkProgram(
  program: string,
  dynamic: boolean,
  name: string,
  home: string,
  depth: number,
  via: string[],
  cwd: string | undefined,
  read: Reader,
): Command[] {
  const out: Command[] = [];
  const chain = [...via, `${name} system`];
  AWK_RUNS.forEach((pattern, kind) => {
    for (const match of program.matchAll(pattern)) {
      const literal = match[1];
      const text = literal === undefined || dynamic ? undefined : awkString(literal);
      if (text !== undefined) {
        // `print … | "sh"`: the command reads what awk prints, which the gate cannot know.
        const found = read.script(text, cwd ?? '/', home, depth + 1, chain);
        out.push(
          ...(kind === 1 ? found.map((c) => ({ ...c, stdin: undefined, stdinUnknown: true })) : found),
        );
      } else {
        const unknown: SimpleCommand = { words: [], redirects: [], stdinUnknown: false, cwd };
        out.push(
          command(unknown, 'eval', [{ text: UNKNOWN, dynamic: true, glob: false }], chain, false, cwd),
        );
      }
    }
  });
  return out;
}

/** An awk string literal's text; undefined when its escapes are not JSON's. */
function awkString(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}
