import { describe, expect, it } from 'vitest';
import { nodesRan } from './format';
import { summary } from './runFixtures';

describe('nodesRan', () => {
  it("says Go's count of the nodes that ran, and a summary written before it had one its step executions", () => {
    expect(nodesRan(summary({ ran: 3, nodes: 2 }))).toBe('3 nodes ran');
    expect(nodesRan(summary({ ran: 1, nodes: 1 }))).toBe('1 node ran');
    const old: Partial<ReturnType<typeof summary>> = summary({ nodes: 2 });
    delete old.ran;
    expect(nodesRan(old as ReturnType<typeof summary>)).toBe('2 nodes ran');
  });
});
