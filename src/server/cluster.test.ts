import { describe, expect, test } from 'vitest';
import { heartbeatMsOf, joinWorkspace, placeTimeoutOf } from './cluster.js';

describe("the supervisor's membership", () => {
  test('without a store it answers from its own figures, and stays alone', async () => {
    let running = 1;
    const membership = await joinWorkspace({
      config: { store: undefined, machine: { name: 'laptop', source: 'the host name' } },
      env: {},
      capacity: 4,
      running: () => running,
      version: '0.1.0',
    });
    running = 3;
    const view = await membership.view();
    expect([membership.machine, membership.placer()]).toEqual(['laptop', undefined]);
    expect(view).toMatchObject({
      clustered: false,
      machine: 'laptop',
      store: null,
      workers: [
        {
          name: 'laptop',
          capacity: 4,
          running: 3,
          free: 1,
          ageSeconds: 0,
          stale: false,
          version: '0.1.0',
          you: true,
        },
      ],
    });
    await membership.leave();
  });

  test('BATON_CLUSTER_HEARTBEAT_MS is a whole number of milliseconds, 50 or more, or an error naming it', () => {
    expect(heartbeatMsOf({})).toBeUndefined();
    expect(heartbeatMsOf({ BATON_CLUSTER_HEARTBEAT_MS: '' })).toBeUndefined();
    expect(heartbeatMsOf({ BATON_CLUSTER_HEARTBEAT_MS: '200' })).toBe(200);
    for (const bad of ['49', '1.5', 'soon'])
      expect(() => heartbeatMsOf({ BATON_CLUSTER_HEARTBEAT_MS: bad })).toThrow(
        /^BATON_CLUSTER_HEARTBEAT_MS must be a whole number of milliseconds, 50 or more/,
      );
  });

  test('BATON_CLUSTER_PLACE_TIMEOUT_MS is a whole number of milliseconds, 100 or more, or an error naming it; 30 s unset', () => {
    expect(placeTimeoutOf({})).toBe(30_000);
    expect(placeTimeoutOf({ BATON_CLUSTER_PLACE_TIMEOUT_MS: '1500' })).toBe(1500);
    for (const bad of ['99', '2.5', 'later'])
      expect(() => placeTimeoutOf({ BATON_CLUSTER_PLACE_TIMEOUT_MS: bad })).toThrow(
        /^BATON_CLUSTER_PLACE_TIMEOUT_MS must be a whole number of milliseconds, 100 or more/,
      );
  });
});
