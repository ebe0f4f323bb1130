import { describe, expect, it } from 'vitest';
import { attribute, hunkText, parseDiff } from './attribution.js';

const combined = `diff --git a/src/index.ts b/src/index.ts
index 1111111..2222222 100644
--- a/src/index.ts
+++ b/src/index.ts
@@ -1,3 +1,4 @@
-export const a = 1;
+export const a = 10;
+export const a2 = 2;
 export const b = 2;
 export const c = 3;
@@ -7,3 +8,3 @@ export const f = 6;
 export const g = 7;
 export const h = 8;
-export const i = 9;
+export const i = 90;
diff --git a/new file.ts b/new file.ts
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new file.ts\t
@@ -0,0 +1 @@
+export {};
`;

const own = (name: string, text: string) => ({ name, file: parseDiff(`diff --git a/x b/x\n${text}`)[0]! });

describe('parseDiff', () => {
  it('reads files, statuses, hunks and line numbers on both sides', () => {
    const files = parseDiff(combined);
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ['src/index.ts', 'modified'],
      ['new file.ts', 'added'],
    ]);
    const [first, second] = files[0]!.hunks;
    expect([first!.oldStart, first!.oldCount, first!.newStart, first!.newCount]).toEqual([1, 3, 1, 4]);
    expect(second!.lines.at(-1)).toEqual({
      kind: '+',
      text: 'export const i = 90;',
      old: null,
      new: 10,
      by: [],
    });
  });

  it('reads a quoted path and a deleted file', () => {
    const files = parseDiff(
      'diff --git "a/caf\\303\\251.ts" "b/caf\\303\\251.ts"\ndeleted file mode 100644\n--- "a/caf\\303\\251.ts"\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n',
    );
    expect(files.map((f) => [f.path, f.status])).toEqual([['café.ts', 'deleted']]);
  });
});

describe('attribute', () => {
  it('gives each line to the session whose own diff has it, and each hunk the union', () => {
    const file = parseDiff(combined)[0]!;
    attribute(file, [
      own(
        'watcher',
        '--- a/src/index.ts\n+++ b/src/index.ts\n@@ -1,2 +1,2 @@\n-export const a = 1;\n+export const a = 10;\n export const b = 2;\n',
      ),
      own(
        'ipc',
        '--- a/src/index.ts\n+++ b/src/index.ts\n@@ -8,2 +8,2 @@\n export const h = 8;\n-export const i = 9;\n+export const i = 90;\n',
      ),
      own(
        'extra',
        '--- a/src/index.ts\n+++ b/src/index.ts\n@@ -1,1 +1,2 @@\n export const a = 1;\n+export const a2 = 2;\n',
      ),
    ]);
    const [first, second] = file.hunks;
    expect(first!.lines.filter((l) => l.kind !== ' ').map((l) => [l.kind, l.by])).toEqual([
      ['-', ['watcher']],
      ['+', ['watcher']],
      ['+', ['extra']],
    ]);
    expect(first!.sessions).toEqual(['watcher', 'extra']);
    expect(second!.sessions).toEqual(['ipc']);
  });

  it('gives a line both sessions added at the same place to both', () => {
    const file = parseDiff('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n a\n+same\n')[0]!;
    const same = '--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n a\n+same\n';
    attribute(file, [own('a', same), own('b', same)]);
    expect(file.hunks[0]!.sessions).toEqual(['a', 'b']);
  });

  it('renders one hunk as a diff of its own', () => {
    const file = parseDiff(combined)[1]!;
    expect(hunkText(file, file.hunks[0]!)).toBe(
      'diff --git a/new file.ts b/new file.ts\n--- /dev/null\n+++ b/new file.ts\n@@ -0,0 +1 @@\n+export {};\n',
    );
  });
});
