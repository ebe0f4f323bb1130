import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkDecisions, entriesOf, moveDecisions, nextNumber, rankDomains, rowFor } from './decisions.mjs';
import { anchorsOf, checkLinks, linksOf, slug } from './links.mjs';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A throwaway repository holding the given files. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'baton-docs-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('the link checker', () => {
  it('passes on the repository: every relative link and anchor resolves, and the README links every page', () => {
    const { files, links, problems } = checkLinks();
    expect(problems).toEqual([]);
    expect(files).toContain('docs/exit-codes.md');
    expect(links).toBeGreaterThan(300);
  });

  it('makes anchors as GitHub does: code kept, punctuation dropped, repeats numbered', () => {
    expect(slug('139. `baton respawn <session> --on <machine>`')).toBe(
      '139-baton-respawn-session---on-machine',
    );
    expect(slug("A repository's own settings: `.baton/config.json`")).toBe(
      'a-repositorys-own-settings-batonconfigjson',
    );
    expect(slug('3. `ready_for_review` keeps the host alive')).toBe(
      '3-ready_for_review-keeps-the-host-alive',
    );
    expect([
      ...anchorsOf('# A\n\n## Notes\n\n## Notes\n\n```\n## not a heading\n```\n<a id="here"></a>\n'),
    ]).toEqual(['a', 'notes', 'notes-1', 'here']);
  });

  it('reads links in prose only: not in fenced, indented or inline code', () => {
    const text = [
      'See [a](a.md) and `[b](b.md)`.',
      '',
      '    [c](c.md) in an indented block',
      '',
      '```',
      '[d](d.md)',
      '```',
      '- a list item',
      '    [e](e.md#x) continues it',
      '[ref]: f.md',
    ].join('\n');
    expect(linksOf(text)).toEqual([
      { line: 1, target: 'a.md' },
      { line: 9, target: 'e.md#x' },
      { line: 10, target: 'f.md' },
    ]);
  });

  it('names each broken link with its file and line: a missing file, a missing anchor, outside the repository', () => {
    const root = tree({
      'README.md':
        '# R\n\n[guide](docs/guide.md), [gone](docs/gone.md), [bad](docs/guide.md#nope)\n[up](../x.md) [web](https://example.com/x) [self](#r)\n',
      'docs/guide.md': '# Guide\n\n## Usage\n\nBack to [the top](../README.md#r) and [usage](#usage).\n',
    });
    const { problems, links } = checkLinks(root);
    expect(links).toBe(7); // the web link is not checked
    expect(problems).toEqual([
      'README.md:3: docs/gone.md: no such file docs/gone.md',
      'README.md:3: docs/guide.md#nope: docs/guide.md has no heading #nope',
      'README.md:4: ../x.md points outside the repository',
    ]);
  });

  it('wants every page of docs/ linked from the README, or from its folder index', () => {
    const root = tree({
      'README.md': '# R\n\n[a](docs/a.md) [index](docs/notes/README.md)\n',
      'docs/a.md': '# A\n',
      'docs/orphan.md': '# Orphan\n',
      'docs/notes/README.md': '# Notes\n\n[one](one.md)\n',
      'docs/notes/one.md': '# One\n',
      'docs/notes/two.md': '# Two\n',
    });
    expect(checkLinks(root).problems).toEqual([
      "docs/notes/two.md is not linked from README.md: add it to the README's table of docs (or link it from docs/notes/README.md)",
      "docs/orphan.md is not linked from README.md: add it to the README's table of docs",
    ]);
  });
});

const INDEX_HEAD =
  '# Decisions\n\n## Domains\n\n| file | domain |\n|---|---|\n| [a](a.md) | A |\n| [b](b.md) | B |\n\n## Index\n\n| # | title | status | file |\n|---|---|---|---|\n';

function decisions(rows: string[], a: string, b: string, legacy?: string): string {
  return tree({
    'docs/decisions/README.md': INDEX_HEAD + rows.map((r) => `${r}\n`).join(''),
    'docs/decisions/a.md': a,
    'docs/decisions/b.md': b,
    ...(legacy === undefined ? {} : { 'docs/decisions.md': legacy }),
    'docs/fixes.md': '# Fixes\n',
  });
}

describe('the decisions index', () => {
  const a = '# Decisions: A\n\n## 1. First\n\nWhy.\n\n## 3. Third, with `code`\n\nBecause.\n';
  const b = '# Decisions: B\n\n## 2. Second\n\nSo. The sandbox hides the state folder.\n';
  const rows = [
    rowFor({ number: 1, title: 'First' }, 'a'),
    rowFor({ number: 2, title: 'Second' }, 'b', 'superseded by 3'),
    rowFor({ number: 3, title: 'Third, with `code`' }, 'a'),
  ];

  it('passes on the repository, whose every decision has its row', () => {
    expect(checkDecisions()).toEqual([]);
    expect(nextNumber()).toBeGreaterThan(172);
  });

  it('passes when every entry has its row, and finds the next free number', () => {
    const root = decisions(rows, a, b);
    expect(checkDecisions(root)).toEqual([]);
    expect(nextNumber(root)).toBe(4);
  });

  it('says which row to add for an entry without one, and which row is wrong', () => {
    const root = decisions([rows[0]!, rows[2]!.replace('Third, with `code`]', 'Third]')], a, b);
    expect(checkDecisions(root)).toEqual([
      `docs/decisions/README.md:15: decision 3's row does not match its entry (docs/decisions/a.md:7); the row should be: ${rows[2]}`,
      `docs/decisions/b.md:3: decision 2 "Second" has no row in the index; add this row to docs/decisions/README.md, in number order: ${rowFor({ number: 2, title: 'Second' }, 'b')}`,
    ]);
  });

  it('refuses a status it does not know, a status naming no decision, a number used twice and rows out of order', () => {
    const root = decisions(
      [
        rows[0]!,
        rows[2]!,
        rows[1]!.replace('superseded by 3', 'obsolete'),
        rowFor({ number: 1, title: 'First' }, 'a', 'amended by 9'),
      ],
      a,
      b + '\n## 1. First again\n\nDup.\n',
    );
    const problems = checkDecisions(root);
    expect(problems).toContainEqual(
      expect.stringMatching(
        /b\.md:7: decision 1 is also in docs\/decisions\/a\.md:3; give one of them the next free number, 4/,
      ),
    );
    expect(problems).toContainEqual(expect.stringMatching(/decision 2's status "obsolete" is not one of/));
    expect(problems).toContainEqual(
      expect.stringMatching(/row 2 comes after 3; keep the rows in number order/),
    );
    expect(problems).toContainEqual(expect.stringMatching(/decision 1 has a second row/));
    expect(problems).toContainEqual(
      expect.stringMatching(/decision 1's status names decision 9, which does not exist/),
    );
  });

  it('tells the lead what to do with a docs/decisions.md a branch from before the split brings back, and moves it', () => {
    const legacy =
      '# Decisions\n\n## 1. First\n\nWhy.\n\n## 2. Second\n\nSo, and more now.\n\n## 4. The sandbox\n\nIn `src/sandbox/run.ts`, `src/sandbox/x.ts` and `src/tasks/y.ts`.\n';
    const root = decisions(rows, a, b, legacy);
    expect(checkDecisions(root)).toEqual([
      'docs/decisions.md:7: decision 2\'s text there has 1 line(s) that docs/decisions/b.md:3 lacks (first: "So, and more now."); carry the change over by hand',
      'docs/decisions.md:11: decision 4 "The sandbox" is not in docs/decisions/ yet; run: node scripts/decisions.mjs --move 4=b (the domain whose decisions its words fit best, then a; any of: a, b)',
      'docs/decisions.md: once the entries above are moved, delete it (git rm docs/decisions.md); the decisions live in docs/decisions/',
    ]);
    expect(() => moveDecisions([[4, 'nowhere']], root)).toThrow(/no docs\/decisions\/nowhere\.md/);
    expect(moveDecisions([[4, 'b']], root)).toEqual([
      'decision 4 "The sandbox" → docs/decisions/b.md, with its index row',
    ]);
    expect(readFileSync(join(root, 'docs/decisions/b.md'), 'utf8')).toMatch(
      /## 2\. Second\n\nSo\. The sandbox hides the state folder\.\n\n## 4\. The sandbox\n/,
    );
    expect(readFileSync(join(root, 'docs/decisions/README.md'), 'utf8').trimEnd().split('\n').at(-1)).toBe(
      rowFor({ number: 4, title: 'The sandbox' }, 'b'),
    );
    // The changed text of decision 2 is still waiting, so the old file stays until it is carried over.
    expect(existsSync(join(root, 'docs/decisions.md'))).toBe(true);
    writeFileSync(
      join(root, 'docs/decisions/b.md'),
      readFileSync(join(root, 'docs/decisions/b.md'), 'utf8').replace('So.', 'So, and more now.'),
    );
    expect(checkDecisions(root)).toEqual([
      'docs/decisions.md holds only decisions already in docs/decisions/, word for word: delete it (git rm docs/decisions.md)',
    ]);
  });

  it("ranks the domains a new decision fits: left out in turn, most of the repository's decisions come first or second in their own", () => {
    const folder = join(import.meta.dirname, '..', 'docs', 'decisions');
    const domains = new Map(
      readdirSync(folder)
        .filter((name) => name !== 'README.md')
        .map((name) => [name.slice(0, -3), entriesOf(readFileSync(join(folder, name), 'utf8'))] as const),
    );
    let first = 0;
    let second = 0;
    let total = 0;
    for (const [domain, entries] of domains)
      for (const entry of entries) {
        const without = new Map([...domains].map(([d, list]) => [d, list.filter((e) => e !== entry)]));
        const ranked = rankDomains(entry.text, without);
        total += 1;
        if (ranked[0] === domain) first += 1;
        else if (ranked[1] === domain) second += 1;
      }
    console.log(
      `decision domains, leave one out: ${first}/${total} first, ${first + second}/${total} in the first two`,
    );
    // A hint the lead confirms, not a decision: it must beat the largest domain's share (32 of 174) by far.
    expect(first / total).toBeGreaterThan(0.5);
    expect((first + second) / total).toBeGreaterThan(0.65);
  });
});
