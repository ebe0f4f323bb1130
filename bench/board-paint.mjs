#!/usr/bin/env node
/**
 * One terminal board started in a process of its own, timed to its first frame listing sessions
 * (bench/board.mjs runs it several times, between its floors): the frame's time from this
 * process's start (performance.now()) and from the board's start. Nothing else is loaded first, so
 * the first figure is what a person waits for after typing `baton`, less the shell's own start.
 *
 *   node bench/board-paint.mjs <board module> <BATON_HOME> <cwd>
 */
import { PassThrough, Writable } from 'node:stream';

const [entry, home, cwd] = process.argv.slice(2);
const boardStart = performance.now();
let painted;
const firstPaint = new Promise((resolve) => (painted = resolve));
const stdout = Object.assign(
  new Writable({
    write(chunk, _encoding, done) {
      if (/session-\d+/.test(String(chunk))) painted(performance.now());
      done();
    },
  }),
  { isTTY: true, columns: 120, rows: 40, hasColors: () => false },
);
const stdin = Object.assign(new PassThrough(), {
  isTTY: true,
  setRawMode: () => undefined,
  ref: () => undefined,
  unref: () => undefined,
});
const ctx = { home, cwd, env: { ...process.env, BATON_HOME: home }, out: stdout, err: stdout };
const { renderBoard } = await import(entry);
const entryLoaded = performance.now();
// Resolves once Ink has drawn its first frame: with the sessions when the feed had them by then.
await renderBoard({ ctx, stdin, stdout, here: undefined, color: false });
const rendered = performance.now();
const at = await firstPaint;
process.stdout.write(
  JSON.stringify({
    fromStart: at,
    fromBoard: at - boardStart,
    steps: {
      'Node started → this script runs': boardStart,
      "the board's entry loaded": entryLoaded - boardStart,
      'Ink, React and the screen loaded (the feed meanwhile), first frame drawn': rendered - entryLoaded,
      'then until the sessions are on screen': Math.max(0, at - rendered),
    },
  }),
);
process.exit(0);
