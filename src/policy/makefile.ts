/**
 * What `make <target>` runs: the recipe lines of the target and of the prerequisites it builds,
 * with the Makefile's own variables put in. Anything make would only know when it runs (a
 * function, an undefined variable, an included file) becomes a shell variable, which the gate
 * reads as unknown, so it asks rather than guesses.
 */

export interface Recipes {
  /** One shell command line per recipe line, in the order make would run them. */
  lines: string[];
  /** Why the gate cannot tell all make would run (an include, a pattern rule it may fall to). */
  unsure?: string | undefined;
}

interface Rule {
  prerequisites: string[];
  recipe: string[];
}

const MAX_RULES = 64;

export function makeRecipes(text: string, goals: readonly string[]): Recipes {
  const { rules, vars, order, includes, patterns } = readMakefile(text);
  const wanted = goals.length > 0 ? goals : order.slice(0, 1);
  const lines: string[] = [];
  const seen = new Set<string>();
  let unsure: string | undefined;
  const visit = (target: string): void => {
    if (seen.has(target) || seen.size >= MAX_RULES) return;
    seen.add(target);
    const rule = rules.get(target);
    if (rule === undefined) {
      if (goals.includes(target) && (includes || patterns))
        unsure = `make ${target} may run a rule from an included makefile or a pattern rule`;
      return;
    }
    const auto: Record<string, string> = {
      '@': target,
      '<': rule.prerequisites[0] ?? '',
      '^': rule.prerequisites.join(' '),
      '?': rule.prerequisites.join(' '),
    };
    for (const prerequisite of rule.prerequisites) visit(prerequisite);
    for (const line of rule.recipe) lines.push(stripPrefix(expand(line, vars, auto, 0)));
  };
  for (const goal of wanted) visit(goal);
  return { lines: lines.filter((l) => l.trim() !== ''), unsure };
}

function readMakefile(text: string): {
  rules: Map<string, Rule>;
  vars: Map<string, string>;
  order: string[];
  includes: boolean;
  patterns: boolean;
} {
  const rules = new Map<string, Rule>();
  const vars = new Map<string, string>();
  const order: string[] = [];
  let includes = false;
  let patterns = false;
  let current: Rule[] = [];
  const physical = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  for (const line of physical) {
    if (line.startsWith('\t')) {
      for (const rule of current) rule.recipe.push(line.slice(1));
      continue;
    }
    const content = line.replace(/(^|[^\\])#.*$/, '$1');
    if (content.trim() === '') continue;
    if (/^\s*-?s?include\s/.test(content)) {
      includes = true;
      continue;
    }
    const assign =
      /^\s*(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(?::{1,3}|\?|\+|!)?=\s*(.*)$/.exec(content);
    if (assign !== null) {
      const [, name = '', value = ''] = assign;
      vars.set(name, /\+=/.test(content) ? `${vars.get(name) ?? ''} ${value}` : value);
      current = [];
      continue;
    }
    const colon = /^([^:=]+?)\s*::?\s*([^=]*)$/.exec(content);
    if (colon === null) {
      current = [];
      continue;
    }
    const [, targetText = '', rest = ''] = colon;
    const [prereqText = '', inline] = splitFirst(rest, ';');
    const targets = targetText.trim().split(/\s+/);
    current = targets.map((target) => {
      if (target.includes('%')) patterns = true;
      if (!target.startsWith('.') && !target.includes('%') && !order.includes(target)) order.push(target);
      const rule = rules.get(target) ?? { prerequisites: [], recipe: [] };
      rule.prerequisites.push(...prereqText.split(/\s+/).filter((p) => p !== '' && !p.startsWith('|')));
      if (inline !== undefined && inline.trim() !== '') rule.recipe.push(inline.trim());
      rules.set(target, rule);
      return rule;
    });
  }
  return { rules, vars, order, includes, patterns };
}

function splitFirst(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

/** `@`, `-` and `+` before a recipe line are make's, not the shell's. */
function stripPrefix(line: string): string {
  return line.replace(/^\s*[@+-]+\s*/, '');
}

/** make's expansion: `$$` is `$`, `$(X)`/`${X}`/`$X` are variables; what make alone knows becomes `${__make}`. */
function expand(
  line: string,
  vars: Map<string, string>,
  auto: Record<string, string>,
  depth: number,
): string {
  if (depth > 8) return '${__make}';
  let out = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c !== '$') {
      out += c;
      continue;
    }
    const next = line[i + 1];
    if (next === '$') {
      out += '$';
      i++;
    } else if (next === '(' || next === '{') {
      const close = matching(line, i + 1);
      const inner = line.slice(i + 2, close < 0 ? line.length : close);
      out += variable(inner, vars, auto, depth);
      i = close < 0 ? line.length : close;
    } else if (next !== undefined) {
      out +=
        auto[next] ?? (vars.has(next) ? expand(vars.get(next) ?? '', vars, auto, depth + 1) : '${__make}');
      i++;
    }
  }
  return out;
}

function variable(
  name: string,
  vars: Map<string, string>,
  auto: Record<string, string>,
  depth: number,
): string {
  if (name in auto) return auto[name] ?? '';
  const value = vars.get(name);
  // A function (`$(shell …)`, `$(wildcard …)`) or a variable set elsewhere: only make knows it.
  return value === undefined ? '${__make}' : expand(value, vars, auto, depth + 1);
}

function matching(line: string, open: number): number {
  const opener = line[open];
  const closer = opener === '(' ? ')' : '}';
  let level = 0;
  for (let i = open; i < line.length; i++) {
    if (line[i] === opener) level++;
    else if (line[i] === closer && --level === 0) return i;
  }
  return -1;
}
