import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { quoteArgv, quoteWord } from './shell-quote.js';

describe('quoting an argument list as a command line', () => {
  it('leaves plain words bare and single-quotes the rest', () => {
    expect(quoteArgv(['rm', '-rf', 'build/x.txt'])).toBe('rm -rf build/x.txt');
    expect(quoteArgv(['echo', 'a b', '', '$HOME', "it's"])).toBe(`echo 'a b' '' '$HOME' 'it'\\''s'`);
    expect(quoteWord('~')).toBe(`'~'`);
  });

  it('gives the shell back exactly the words it was given', () => {
    const words = [
      'a b',
      '',
      '$(touch x)',
      "it's",
      '"q"',
      '*',
      '~',
      'back\\slash',
      'line\nbreak',
      '-n',
      ';|&<>',
    ];
    const line = `printf '%s\\0' ${quoteArgv(words)}`;
    const out = execFileSync('/bin/sh', ['-c', line], { encoding: 'utf8' });
    expect(out.split('\0').slice(0, -1)).toEqual(words);
  });
});
