import { describe, expect, it } from 'vitest';
import type { SessionView } from '../api/index.js';
import type { SupervisorClient } from '../cli/client.js';
import { dispatch, emptyDispatch, removeWarning, reply } from './actions.js';

/** A client that fails the test if anything reaches the supervisor: bad input is refused before. */
const untouchable = new Proxy(
  {},
  { get: () => () => Promise.reject(new Error('the supervisor was called')) },
) as unknown as SupervisorClient;
const session = {
  id: 'a1',
  name: 'w3',
  state: 'working',
  branch: 'baton/w3',
  worktree: '/wt/w3',
} as SessionView;

describe("the board's actions refuse bad input before calling the supervisor", () => {
  it('an empty prompt, and a malformed agent name with the list of agents', async () => {
    await expect(dispatch(untouchable, { ...emptyDispatch, prompt: '  ' }, '/repo')).rejects.toThrow(
      'The prompt is empty',
    );
    await expect(dispatch(untouchable, { prompt: 'x', agent: 'GPT 4', name: '' }, '/repo')).rejects.toThrow(
      /"GPT 4" is not an agent name; agents are: .*scripted/,
    );
  });

  it('an empty reply', async () => {
    await expect(reply(untouchable, session, '   ')).rejects.toThrow('Nothing to send');
  });

  it('removal says the worktree goes, where uncommitted work is kept, and that the agent is stopped', () => {
    const text = removeWarning(session).join('\n');
    expect(text).toContain('it is working: its agent is stopped');
    expect(text).toContain('/wt/w3 is deleted');
    expect(text).toContain('refs/baton/snapshots/w3');
    expect(text).toContain('branch baton/w3 is kept if it has commits');
  });
});
