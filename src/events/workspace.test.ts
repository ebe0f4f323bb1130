import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import * as workspace from './workspace.js';
import { WORKSPACE_EVENTS, WorkspaceEvent, type WorkspaceEventType } from './workspace.js';
import { isWorkspaceEventDefinition } from './workspace/define.js';

describe('workspace events', () => {
  it('are each defined once, and the union holds every definition the domains export', () => {
    const exported = (Object.values(workspace) as unknown[]).filter(isWorkspaceEventDefinition);
    const types = WORKSPACE_EVENTS.map((definition) => definition.type);
    expect(new Set(types).size).toBe(types.length);
    expect([...types].sort()).toEqual(exported.map((definition) => definition.type).sort());
    expect(WorkspaceEvent.options.map((option) => option.shape.type.value).sort()).toEqual([...types].sort());
  });

  it('checks an event by its type: its own data passes, another shape is refused', () => {
    const event = { seq: 1, ts: '2026-01-01T00:00:00.000Z', type: 'task.removed' };
    expect(
      WorkspaceEvent.safeParse({ ...event, data: { taskId: 3, project: '/p', title: 't' } }).success,
    ).toBe(true);
    expect(WorkspaceEvent.safeParse({ ...event, data: { taskId: '3' } }).success).toBe(false);
    expect(WorkspaceEvent.safeParse({ ...event, type: 'task.unknown', data: {} }).success).toBe(false);
  });

  it('derives the types from the definitions: the schema says what the type says', () => {
    expectTypeOf<z.output<typeof WorkspaceEvent>>().toEqualTypeOf<WorkspaceEvent>();
    expectTypeOf<'task.synced' | 'policy.auto_approved' | 'sync.failed'>().toExtend<WorkspaceEventType>();
    expectTypeOf<string>().not.toExtend<WorkspaceEventType>();
    expectTypeOf<
      Extract<WorkspaceEvent, { type: 'merge.landed' }>['data']['commit']
    >().toEqualTypeOf<string>();
  });
});
