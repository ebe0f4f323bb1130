// The docs' link checker. Every relative link and #anchor in the Markdown files at the root of the
// repository and under docs/ must resolve, and the README must link every page under docs/ (a page
// in a folder of docs/ may be linked from that folder's README.md instead, as the decisions are
// from their index), so the README stays the map of the docs.
//
//   node scripts/links.mjs            checks, prints what it checked; exits 1 naming each broken link
//                                     (npm run lint runs this)
//
// Links to the web (http:, https:, mailto:) are not fetched: lint never reaches the network.
// Anchors follow GitHub's rule for heading ids (lowercase; punctuation other than - and _ dropped;
// spaces become -; a repeated heading gets -1, -2, …), so a link that works here works there.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import process from 'node:process';
import console from 'node:console';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** GitHub's id for a heading's text (the Markdown source of the heading, without the #s). */
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/(`+)(.*?)\1|<[^>]+>/g, (_, ticks, code) => (ticks ? code : '')) // code kept as text, HTML dropped
    .replace(/\*/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/**
 * The lines of a Markdown text with code blanked out (fenced and indented blocks, inline code
 * spans), so neither links nor headings are read from code; line numbers are kept.
 */
export function proseLines(markdown) {
  const lines = markdown.split('\n');
  const out = [];
  let fence;
  let previousBlank = true;
  let inIndented = false;
  for (const line of lines) {
    if (fence !== undefined) {
      if (line.trimStart().startsWith(fence)) fence = undefined;
      out.push('');
      continue;
    }
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (opening) {
      fence = opening[1];
      out.push('');
      previousBlank = false;
      continue;
    }
    const blank = line.trim() === '';
    // An indented code block starts after a blank line (or another code line); a list item's
    // indented continuation does not, as its previous line is text.
    inIndented = !blank && /^( {4}|\t)/.test(line) && (previousBlank || inIndented);
    out.push(inIndented ? '' : line);
    if (!blank) previousBlank = false;
    else previousBlank = true;
  }
  // Inline code spans, per paragraph (a span never crosses a blank line); newlines kept.
  const text = out.join('\n').replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
  return text.split('\n');
}

/** The anchors a Markdown text offers: its headings' ids (with GitHub's -1, -2 for repeats) and <a id>/<a name>. */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  const source = markdown.split('\n');
  proseLines(markdown).forEach((line, i) => {
    // Found in the prose (not in code), read from the source: code spans in a heading count.
    const heading = /^ {0,3}#{1,6}\s/.test(line)
      ? /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(source[i])
      : null;
    if (heading) {
      const base = slug(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const [, id] of line.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(id);
  });
  return anchors;
}

/** Every link of a Markdown text: its 1-based line and its target as written. */
export function linksOf(markdown) {
  const found = [];
  proseLines(markdown).forEach((line, i) => {
    for (const match of line.matchAll(/\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+"[^"]*")?\s*\)/g))
      found.push({ line: i + 1, target: match[1].replace(/^<|>$/g, '') });
    const definition = /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(line);
    if (definition) found.push({ line: i + 1, target: definition[1].replace(/^<|>$/g, '') });
    for (const match of line.matchAll(/<(?:a|img)\s[^>]*(?:href|src)="([^"]+)"/g))
      found.push({ line: i + 1, target: match[1] });
  });
  return found;
}

/** The Markdown files checked: those at the root and everything under docs/. */
export function markdownFiles(root = ROOT) {
  const files = readdirSync(root)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, name));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  return files.sort();
}

const toPosix = (path) => path.split(sep).join('/');

/**
 * Checks every link of the Markdown files under root. Returns what was checked and the problems,
 * each one line naming the file, the line and what to fix.
 */
export function checkLinks(root = ROOT) {
  const files = markdownFiles(root);
  const anchorCache = new Map();
  const anchors = (path) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(readFileSync(path, 'utf8')));
    return anchorCache.get(path);
  };
  const problems = [];
  const linkedFrom = new Map(); // a Markdown file → the files that link to it
  let links = 0;
  let anchored = 0;
  for (const file of files) {
    const name = toPosix(relative(root, file));
    for (const { line, target } of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // the web
      links += 1;
      const where = `${name}:${line}`;
      const hash = target.indexOf('#');
      const rawPath = hash < 0 ? target : target.slice(0, hash);
      let anchor = hash < 0 ? undefined : target.slice(hash + 1);
      let path;
      try {
        path = decodeURIComponent(rawPath);
        if (anchor !== undefined) anchor = decodeURIComponent(anchor);
      } catch {
        problems.push(`${where}: ${target} is not a valid link (bad %-escape)`);
        continue;
      }
      const resolved =
        path === '' ? file : path.startsWith('/') ? join(root, path) : resolve(dirname(file), path);
      const inside = relative(root, resolved);
      if (inside.startsWith('..') || resolve(root, inside) !== resolved) {
        problems.push(`${where}: ${target} points outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${where}: ${target}: no such file ${toPosix(inside)}`);
        continue;
      }
      if (resolved.endsWith('.md') && resolved !== file) {
        const users = linkedFrom.get(resolved) ?? new Set();
        users.add(file);
        linkedFrom.set(resolved, users);
      }
      if (anchor === undefined || anchor === '') continue;
      anchored += 1;
      if (statSync(resolved).isDirectory()) {
        problems.push(`${where}: ${target}: a folder has no anchors`);
      } else if (resolved.endsWith('.md')) {
        if (!anchors(resolved).has(anchor)) {
          const near = [...anchors(resolved)].filter((a) => a.startsWith(anchor.slice(0, 8))).slice(0, 3);
          problems.push(
            `${where}: ${target}: ${toPosix(inside)} has no heading #${anchor}` +
              (near.length ? ` (did you mean ${near.map((a) => `#${a}`).join(', ')}?)` : ''),
          );
        }
      } else if (!/^L\d+(-L\d+)?$/.test(anchor)) {
        problems.push(`${where}: ${target}: only a Markdown file has heading anchors (#L12 for a line)`);
      }
    }
  }
  // The README is the map: every page under docs/ is linked from it, or from its folder's README.md.
  const readme = join(root, 'README.md');
  for (const file of files) {
    const name = toPosix(relative(root, file));
    if (!name.startsWith('docs/')) continue;
    const folderIndex = join(dirname(file), 'README.md');
    const users = linkedFrom.get(file) ?? new Set();
    if (users.has(readme)) continue;
    if (dirname(file) !== join(root, 'docs') && folderIndex !== file && users.has(folderIndex)) continue;
    problems.push(
      `${name} is not linked from README.md: add it to the README's table of docs` +
        (dirname(file) !== join(root, 'docs') && folderIndex !== file
          ? ` (or link it from ${toPosix(relative(root, folderIndex))})`
          : ''),
    );
  }
  return { files: files.map((f) => toPosix(relative(root, f))), links, anchored, problems };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { files, links, anchored, problems } = checkLinks();
  if (problems.length) {
    console.error(problems.join('\n'));
    console.error(
      `links: ${problems.length} broken of ${links} relative links in ${files.length} Markdown files`,
    );
    process.exit(1);
  }
  console.log(
    `links: ${links} relative links (${anchored} with an anchor) in ${files.length} Markdown files resolve; README links every page of docs/`,
  );
}
