import { describe, expect, it } from 'vitest';
import type { Context } from './context.js';
import { readOnlyCommand } from './fast.js';

const ctx = {} as Context;

describe('read-only commands without commander', () => {
  it('takes the plain forms of ls, peek, logs and daemon status', () => {
    for (const args of [
      ['ls'],
      ['list', '--json'],
      ['ls', '--here', '--json'],
      ['peek', 's1'],
      ['peek', '--json', 's1'],
      ['logs', 's1', '--after', '3'],
      ['logs', 's1', '--after=3', '--json'],
      ['daemon', 'status'],
      ['daemon', 'status', '--json'],
    ]) {
      expect(readOnlyCommand(ctx, args), args.join(' ')).toBeTypeOf('function');
    }
  });

  it('leaves everything else to commander: help, typos, missing or extra arguments, following, other commands', () => {
    for (const args of [
      [],
      ['--help'],
      ['ls', '-h'],
      ['ls', '--jsn'],
      ['ls', 'extra'],
      ['peek'],
      ['peek', 'a', 'b'],
      ['peek', 's1', '--json=yes'],
      ['logs', 's1', '-f'],
      ['logs', 's1', '--after'],
      ['daemon'],
      ['daemon', 'stop'],
      ['dispatch', 'do it'],
      ['--json', 'ls'],
    ]) {
      expect(readOnlyCommand(ctx, args), args.join(' ')).toBeUndefined();
    }
  });
});
