import { describe, expect, it } from 'vitest';
import type { Context } from './context.js';
import { fastCommand } from './fast.js';

const ctx = {} as Context;

describe('the commands run over and over, without commander', () => {
  it('takes the plain forms of ls, peek, logs, daemon status and a one-session dispatch', () => {
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
      ['dispatch', 'do it'],
      ['dispatch', 'do it', '-n', 'x', '--agent', 'scripted', '-s', 'script.json', '--json'],
      ['dispatch', '--permission-mode=acceptEdits', '--base', 'main', '--wait', 'do it'],
      ['dispatch', 'do it', '--branch', 'b', '--in-place', '--carry-changes', '--on', 'any', '--force'],
    ]) {
      expect(fastCommand(ctx, args), args.join(' ')).toBeTypeOf('function');
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
      ['--json', 'ls'],
      // dispatch: attempts, a missing or extra prompt, what commander refuses with its own message
      ['dispatch', 'do it', '--best-of', '2'],
      ['dispatch', 'do it', '--agents', 'claude,codex'],
      ['dispatch'],
      ['dispatch', 'do', 'it'],
      ['dispatch', 'do it', '--agent', 'Not An Agent!'],
      ['dispatch', 'do it', '-p', 'yolo'],
      ['dispatch', 'do it', '--name'],
      ['dispatch', '--help'],
    ]) {
      expect(fastCommand(ctx, args), args.join(' ')).toBeUndefined();
    }
  });
});
