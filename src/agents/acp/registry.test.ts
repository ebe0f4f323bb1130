import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserConfig } from '../../shared/config.js';
import { formatIssues } from '../../shared/errors.js';
import { acpAgents, acpSignedIn, builtinAcpAgent, findAcpAgent } from './registry.js';

const dir = mkdtempSync(join(tmpdir(), 'baton-acp-registry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function executable(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}

describe('the ACP agent registry', () => {
  it('has the built-in agents with the commands that start them in ACP mode', () => {
    expect(acpAgents(undefined).map((a) => [a.name, [a.command, ...a.args].join(' ')])).toEqual([
      ['gemini', 'gemini --acp'],
      ['opencode', 'opencode acp'],
      ['qwen', 'qwen --acp'],
      ['copilot', 'copilot --acp --stdio'],
    ]);
  });

  it("adds the user's entries after them", () => {
    const agents = acpAgents({ mine: { command: 'my-agent', args: ['--acp'], env: { K: 'v' } } });
    expect(agents.at(-1)).toEqual({
      name: 'mine',
      title: 'mine',
      command: 'my-agent',
      args: ['--acp'],
      env: { K: 'v' },
      source: 'config',
    });
  });

  it('finds an agent on PATH, by its variable, or says how to install it', () => {
    const gemini = builtinAcpAgent('gemini');
    const onPath = executable('gemini');
    expect(findAcpAgent(gemini, { PATH: dir }, '/')).toBe(onPath);
    const named = executable('other-gemini');
    expect(findAcpAgent(gemini, { PATH: '', BATON_GEMINI_PATH: named }, '/')).toBe(named);
    expect(() => findAcpAgent(gemini, { PATH: '' }, '/')).toThrow(/npm install -g @google\/gemini-cli/);
    expect(() => findAcpAgent(gemini, { PATH: '', BATON_GEMINI_PATH: join(dir, 'nope') }, '/')).toThrow(
      /BATON_GEMINI_PATH/,
    );
  });

  it('tells a signed-in agent by its key or its sign-in file', () => {
    const gemini = builtinAcpAgent('gemini');
    expect(acpSignedIn(gemini, { GEMINI_API_KEY: 'k' })).toBe('$GEMINI_API_KEY');
    expect(acpSignedIn(gemini, { HOME: dir })).toBeUndefined();
  });
});

describe("the user's agent entries in config.json", () => {
  const issues = (config: unknown): string => {
    const parsed = UserConfig.safeParse(config);
    return parsed.success ? '' : formatIssues(parsed.error.issues);
  };

  it('takes a command with arguments and variables', () => {
    expect(issues({ agents: { 'my-agent': { command: 'x', args: ['--acp'], env: { A: '1' } } } })).toBe('');
  });

  it('names the bad key of a bad entry', () => {
    expect(issues({ agents: { 'My Agent': { command: 'x' } } })).toMatch(
      /^agents\.My Agent: an agent name is lowercase/,
    );
    expect(issues({ agents: { gemini: { command: 'x' } } })).toMatch(
      /^agents\.gemini: "gemini" is one of Baton's own agents/,
    );
    expect(issues({ agents: { mine: { command: '' } } })).toMatch(
      /^agents\.mine\.command: must name the command/,
    );
    expect(issues({ agents: { mine: { command: 'x', argv: [] } } })).toMatch(/agents\.mine.*argv/);
    expect(issues({ agents: { mine: { command: 'x', env: { A: 1 } } } })).toMatch(/^agents\.mine\.env\.A/);
  });
});
