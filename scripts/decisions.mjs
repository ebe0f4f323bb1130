// The project's decisions: one file per domain under docs/decisions/, and an index of every entry
// (number, title, status, file) in docs/decisions/README.md. This keeps the two the same.
//
//   node scripts/decisions.mjs                  checks; exits 1 with, for each problem, the line to
//                                               add or change (npm run lint runs this)
//   node scripts/decisions.mjs --next           prints the next free decision number
//   node scripts/decisions.mjs --move 173=safety [174=cluster …]
//                                               moves entries written in the old docs/decisions.md
//                                               (a branch from before the split) to the end of
//                                               docs/decisions/<domain>.md, with their index rows
//
// An entry is a heading `## <number>. <title>` and the text up to the next such heading. Code and
// commits cite decisions by number and title, so both are checked word for word.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import console from 'node:console';
import { slug } from './links.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDER = 'docs/decisions';
const INDEX = `${FOLDER}/README.md`;
const LEGACY = 'docs/decisions.md';
const FIXES = 'docs/fixes.md';

/** The entries of a Markdown text: number, title, 1-based line, and the entry's whole text. */
export function entriesOf(text) {
  const lines = text.split('\n');
  const entries = [];
  lines.forEach((line, i) => {
    const match = /^## (\d+)\. (.+)$/.exec(line);
    if (match) entries.push({ number: Number(match[1]), title: match[2].trim(), line: i + 1, start: i });
  });
  return entries.map((entry, k) => {
    const end = k + 1 < entries.length ? entries[k + 1].start : lines.length;
    const { start, ...rest } = entry;
    return { ...rest, text: lines.slice(start, end).join('\n').replace(/\n+$/, '') + '\n' };
  });
}

const ROW = /^\| (\d+) \| \[(.+)\]\(([\w-]+)\.md#([^)\s]*)\) \| (.+?) \| \[([\w-]+)\]\(([\w-]+)\.md\) \|$/;
const STATUS =
  /^(current|superseded by \d+|amended by \d+(, \d+)*|fix log, moved to \[fixes\]\(\.\.\/fixes\.md\))$/;

/** The index's rows (under its "## Index" heading) and its domains table (under "## Domains"). */
export function indexOf(text) {
  const rows = [];
  const domains = [];
  const malformed = [];
  let section = '';
  text.split('\n').forEach((line, i) => {
    if (line.startsWith('## ')) section = line.slice(3).trim();
    if (!line.startsWith('|') || /^\|[-| ]+\|$/.test(line) || /^\| (#|file) \|/.test(line)) return;
    if (section === 'Index') {
      const m = ROW.exec(line);
      if (!m) malformed.push({ line: i + 1, text: line });
      else
        rows.push({
          line: i + 1,
          number: Number(m[1]),
          title: m[2],
          file: m[3],
          anchor: m[4],
          status: m[5],
          fileLabel: m[6],
          fileLink: m[7],
        });
    } else if (section === 'Domains') {
      const m = /^\| \[([\w-]+)\]\(([\w-]+)\.md\) \| .+ \|$/.exec(line);
      if (!m || m[1] !== m[2]) malformed.push({ line: i + 1, text: line });
      else domains.push(m[1]);
    }
  });
  return { rows, domains, malformed };
}

/** The index row an entry needs. */
export function rowFor(entry, domain, status = 'current') {
  return `| ${entry.number} | [${entry.title}](${domain}.md#${slug(`${entry.number}. ${entry.title}`)}) | ${status} | [${domain}](${domain}.md) |`;
}

function domainFiles(root) {
  return readdirSync(join(root, FOLDER))
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => name.slice(0, -3))
    .sort();
}

function read(root) {
  const domains = new Map();
  for (const domain of domainFiles(root))
    domains.set(domain, entriesOf(readFileSync(join(root, FOLDER, `${domain}.md`), 'utf8')));
  const index = indexOf(readFileSync(join(root, INDEX), 'utf8'));
  const legacyPath = join(root, LEGACY);
  const legacy = existsSync(legacyPath) ? entriesOf(readFileSync(legacyPath, 'utf8')) : undefined;
  return { domains, index, legacy };
}

/** The next free number: one past the highest anywhere (the domain files, the index, docs/decisions.md). */
export function nextNumber(root = ROOT) {
  const { domains, index, legacy } = read(root);
  const numbers = [
    ...[...domains.values()].flat().map((e) => e.number),
    ...index.rows.map((r) => r.number),
    ...(legacy ?? []).map((e) => e.number),
  ];
  return Math.max(0, ...numbers) + 1;
}

const wordsOf = (text) => text.toLowerCase().match(/[a-z][a-z_-]{2,}/g) ?? [];

/**
 * The domains ranked by how well a decision's text fits each one's entries: naive Bayes over
 * words, each weighted by how rare it is across entries (so "session" says little and "bubblewrap"
 * much). A hint for the one who files it, not a decision: left out of each entry in turn, the
 * repository's own decisions put 100 of 174 in their domain first and 120 within the first two.
 */
export function rankDomains(text, domains) {
  const entries = [...domains].flatMap(([domain, list]) =>
    list.map((e) => ({ domain, words: wordsOf(e.text) })),
  );
  const spread = new Map(); // word → how many entries use it
  for (const e of entries) for (const w of new Set(e.words)) spread.set(w, (spread.get(w) ?? 0) + 1);
  const counts = new Map();
  const totals = new Map();
  for (const e of entries) {
    const c = counts.get(e.domain) ?? new Map();
    counts.set(e.domain, c);
    for (const w of e.words) c.set(w, (c.get(w) ?? 0) + 1);
    totals.set(e.domain, (totals.get(e.domain) ?? 0) + e.words.length);
  }
  const vocabulary = spread.size;
  const scored = [...counts].map(([domain, c]) => {
    let score = 0;
    for (const w of new Set(wordsOf(text))) {
      const rarity = Math.log(entries.length / (spread.get(w) ?? 1));
      score += rarity * Math.log(((c.get(w) ?? 0) + 1) / (totals.get(domain) + vocabulary));
    }
    return { domain, score };
  });
  return scored.sort((a, b) => b.score - a.score).map((s) => s.domain);
}

const normal = (line) =>
  line
    .trim()
    .replace(/^([-*]|\d+\.)\s+/, '')
    .replace(/^\*\*[^*]+\*\*\s*/, '')
    .replace(/\s+/g, ' ');

/** The lines of a docs/decisions.md entry that are in neither its split copy nor docs/fixes.md. */
function changedLines(entry, copy, fixes) {
  const known = `${(copy?.text ?? '').split('\n').map(normal).join(' ')} ${fixes.split('\n').map(normal).join(' ')}`;
  return entry.text
    .split('\n')
    .slice(1)
    .map(normal)
    .filter((line) => line !== '' && !known.includes(line));
}

/** Every problem, each one line saying exactly what to fix. */
export function checkDecisions(root = ROOT) {
  const { domains, index, legacy } = read(root);
  const problems = [];
  const where = new Map(); // number → { domain, entry }
  for (const [domain, entries] of domains) {
    let previous = 0;
    for (const entry of entries) {
      const file = `${FOLDER}/${domain}.md`;
      const seen = where.get(entry.number);
      if (seen)
        problems.push(
          `${file}:${entry.line}: decision ${entry.number} is also in ${FOLDER}/${seen.domain}.md:${seen.entry.line}; give one of them the next free number, ${nextNumber(root)}`,
        );
      else where.set(entry.number, { domain, entry });
      if (entry.number < previous)
        problems.push(
          `${file}:${entry.line}: decision ${entry.number} comes after ${previous}; keep a file's entries in number order (new ones at the end)`,
        );
      previous = Math.max(previous, entry.number);
    }
    if (!index.domains.includes(domain))
      problems.push(
        `${FOLDER}/${domain}.md is not in the index's domains table: add \`| [${domain}](${domain}.md) | <what it covers> |\` under "## Domains" in ${INDEX}`,
      );
  }
  for (const domain of index.domains)
    if (!domains.has(domain))
      problems.push(
        `${INDEX}: the domains table names ${domain}.md, which does not exist: remove the row or create the file`,
      );
  for (const bad of index.malformed)
    problems.push(
      `${INDEX}:${bad.line}: not a row of the form \`| <number> | [<title>](<domain>.md#<anchor>) | <status> | [<domain>](<domain>.md) |\`: ${bad.text}`,
    );
  const rows = new Map();
  let previous = 0;
  for (const row of index.rows) {
    const at = `${INDEX}:${row.line}`;
    if (rows.has(row.number)) problems.push(`${at}: decision ${row.number} has a second row; remove one`);
    rows.set(row.number, row);
    if (row.number < previous)
      problems.push(`${at}: row ${row.number} comes after ${previous}; keep the rows in number order`);
    previous = Math.max(previous, row.number);
    const found = where.get(row.number);
    if (!found) {
      problems.push(
        `${at}: decision ${row.number} "${row.title}" is in the index but in no ${FOLDER}/*.md; add its entry (\`## ${row.number}. ${row.title}\`) to ${FOLDER}/${row.file}.md, or remove the row`,
      );
      continue;
    }
    const expected = rowFor(found.entry, found.domain, row.status);
    if (
      row.title !== found.entry.title ||
      row.file !== found.domain ||
      row.fileLabel !== found.domain ||
      row.fileLink !== found.domain ||
      row.anchor !== slug(`${found.entry.number}. ${found.entry.title}`)
    )
      problems.push(
        `${at}: decision ${row.number}'s row does not match its entry (${FOLDER}/${found.domain}.md:${found.entry.line}); the row should be: ${expected}`,
      );
    if (!STATUS.test(row.status))
      problems.push(
        `${at}: decision ${row.number}'s status "${row.status}" is not one of: current, superseded by <n>, amended by <n>[, <n>…], fix log, moved to [fixes](../fixes.md)`,
      );
    for (const [, n] of row.status.matchAll(/(\d+)/g))
      if (!where.has(Number(n)))
        problems.push(`${at}: decision ${row.number}'s status names decision ${n}, which does not exist`);
  }
  for (const [number, { domain, entry }] of where)
    if (!rows.has(number))
      problems.push(
        `${FOLDER}/${domain}.md:${entry.line}: decision ${number} "${entry.title}" has no row in the index; add this row to ${INDEX}, in number order: ${rowFor(entry, domain)}`,
      );
  if (legacy !== undefined) problems.push(...legacyProblems(root, legacy, where, domains));
  return problems;
}

/** What to do with a docs/decisions.md that a branch from before the split brought back. */
function legacyProblems(root, legacy, where, domains) {
  const problems = [];
  const fixesPath = join(root, FIXES);
  const fixes = existsSync(fixesPath) ? readFileSync(fixesPath, 'utf8') : '';
  let waiting = 0;
  for (const entry of legacy) {
    const at = `${LEGACY}:${entry.line}`;
    const split = where.get(entry.number);
    if (split && split.entry.title === entry.title) {
      const changed = changedLines(entry, split.entry, fixes);
      if (changed.length) {
        waiting += 1;
        problems.push(
          `${at}: decision ${entry.number}'s text there has ${changed.length} line(s) that ${FOLDER}/${split.domain}.md:${split.entry.line} lacks (first: "${changed[0].slice(0, 100)}"); carry the change over by hand`,
        );
      }
      continue;
    }
    waiting += 1;
    if (split) {
      problems.push(
        `${at}: decision ${entry.number} "${entry.title}" takes a number already used by "${split.entry.title}" (${FOLDER}/${split.domain}.md); renumber it to ${nextNumber(root)} (and the code's citations of it), then move it`,
      );
      continue;
    }
    const [first, second] = rankDomains(entry.text, domains);
    problems.push(
      `${at}: decision ${entry.number} "${entry.title}" is not in ${FOLDER}/ yet; run: node scripts/decisions.mjs --move ${entry.number}=${first ?? '<domain>'}` +
        ` (the domain whose decisions its words fit best${second ? `, then ${second}` : ''}; any of: ${domainFiles(root).join(', ')})`,
    );
  }
  if (waiting === 0)
    problems.push(
      `${LEGACY} holds only decisions already in ${FOLDER}/, word for word: delete it (git rm ${LEGACY})`,
    );
  else
    problems.push(
      `${LEGACY}: once the entries above are moved, delete it (git rm ${LEGACY}); the decisions live in ${FOLDER}/`,
    );
  return problems;
}

/**
 * Moves entries of docs/decisions.md to the end of their domain files, with their index rows (in
 * number order), and takes them out of docs/decisions.md; deletes it once all it holds is moved.
 * Returns what it did, one line each.
 */
export function moveDecisions(assignments, root = ROOT) {
  const { domains, legacy, index } = read(root);
  if (legacy === undefined) throw new Error(`${LEGACY} does not exist: there is nothing to move`);
  const done = [];
  let legacyText = readFileSync(join(root, LEGACY), 'utf8');
  let indexText = readFileSync(join(root, INDEX), 'utf8');
  for (const [number, domain] of assignments) {
    if (!domains.has(domain))
      throw new Error(`no ${FOLDER}/${domain}.md: the domains are ${[...domains.keys()].join(', ')}`);
    const entry = legacy.find((e) => e.number === number);
    if (!entry) throw new Error(`${LEGACY} has no decision ${number}`);
    if (index.rows.some((r) => r.number === number))
      throw new Error(
        `decision ${number} is already in the index: renumber the one in ${LEGACY} first (next free: ${nextNumber(root)})`,
      );
    const file = join(root, FOLDER, `${domain}.md`);
    writeFileSync(file, `${readFileSync(file, 'utf8').replace(/\n+$/, '')}\n\n${entry.text}`);
    const lines = indexText.replace(/\n+$/, '').split('\n');
    const rowLines = lines.map((l, i) => ({ i, m: ROW.exec(l) })).filter((x) => x.m);
    const after = rowLines.filter((x) => Number(x.m[1]) < number).at(-1) ?? rowLines.at(-1);
    if (after === undefined) throw new Error(`${INDEX} has no index rows to add to`);
    lines.splice(after.i + 1, 0, rowFor(entry, domain));
    indexText = `${lines.join('\n')}\n`;
    legacyText = legacyText.replace(entry.text, '');
    index.rows.push({ number });
    done.push(`decision ${number} "${entry.title}" → ${FOLDER}/${domain}.md, with its index row`);
  }
  writeFileSync(join(root, INDEX), indexText);
  writeFileSync(join(root, LEGACY), legacyText);
  if (checkDecisions(root).some((p) => p.startsWith(`${LEGACY} holds only`))) {
    rmSync(join(root, LEGACY));
    done.push(`${LEGACY} held nothing more: deleted (git rm it)`);
  }
  return done;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--next') {
    console.log(nextNumber());
  } else if (args[0] === '--move') {
    const pairs = args.slice(1).map((a) => /^(\d+)=([\w-]+)$/.exec(a));
    if (pairs.length === 0 || pairs.some((p) => p === null)) {
      console.error('usage: node scripts/decisions.mjs --move <number>=<domain> [<number>=<domain> …]');
      process.exit(2);
    }
    try {
      for (const line of moveDecisions(pairs.map((p) => [Number(p[1]), p[2]]))) console.log(line);
    } catch (error) {
      console.error(`decisions: ${error.message}`);
      process.exit(1);
    }
  } else {
    const problems = checkDecisions();
    if (problems.length) {
      console.error(problems.join('\n'));
      console.error(`decisions: ${problems.length} problem(s); ${INDEX} says how to add a decision`);
      process.exit(1);
    }
    const { domains, index } = read(ROOT);
    console.log(
      `decisions: ${index.rows.length} entries in ${domains.size} domain files, each with its index row; next free number ${nextNumber()}`,
    );
  }
}
