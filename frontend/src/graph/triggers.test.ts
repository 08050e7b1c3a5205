import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { ReactFlowProvider } from '@xyflow/react';
import { createElement } from 'react';
import { fixtureWorkflow } from '../test/fixtures';
import { toFlowNodes } from './toFlow';
import { TRIGGER_WIDTH, isTriggerId, triggerFlow } from './triggers';
import { TriggerNode } from '../components/TriggerNode';

// A workflow's triggers are drawn before its entry step, one node each with
// an edge into the step; they cannot be selected, moved, connected or
// deleted, and a workflow without triggers draws none.
describe('triggerFlow', () => {
  it('draws each trigger before the entry step, with an edge into it', () => {
    const w = fixtureWorkflow();
    const nodes = toFlowNodes(w, 'LR');
    expect(triggerFlow(w, nodes)).toEqual({ nodes: [], edges: [] });
    expect(triggerFlow(null, nodes)).toEqual({ nodes: [], edges: [] });

    const into = new Set(w.edges.map((e) => e.to));
    const entry = nodes.find((n) => !into.has(n.id))!;
    const withTriggers = {
      ...w,
      triggers: [
        { type: 'webhook' as const, path: '/hooks/deploy', secret: '{{secrets.HOOK}}', scheme: 'github' },
        { type: 'file' as const, glob: 'inbox/*.csv' },
      ],
    };
    const t = triggerFlow(withTriggers, nodes);
    expect(t.nodes.map((n) => [n.id, n.data.label, n.data.detail])).toEqual([
      ['trigger:0', 'Webhook', '/hooks/deploy · github'],
      ['trigger:1', 'Watched folder', 'inbox/*.csv'],
    ]);
    for (const n of t.nodes) {
      expect(isTriggerId(n.id)).toBe(true);
      expect(n.position.x + TRIGGER_WIDTH).toBeLessThan(entry.position.x);
      expect([n.selectable, n.draggable, n.connectable, n.deletable]).toEqual([false, false, false, false]);
    }
    expect(t.nodes[0].position.y).toBeLessThan(t.nodes[1].position.y);
    expect(t.edges.map((e) => [e.source, e.target, e.targetHandle])).toEqual([
      ['trigger:0', entry.id, 'in'],
      ['trigger:1', entry.id, 'in'],
    ]);
    expect(nodes.some((n) => isTriggerId(n.id))).toBe(false);
  });

  it('shows what starts the workflow', () => {
    const [n] = triggerFlow(
      { ...fixtureWorkflow(), triggers: [{ type: 'file', glob: 'inbox/*.csv' }] },
      toFlowNodes(fixtureWorkflow(), 'LR'),
    ).nodes;
    render(createElement(ReactFlowProvider, null, createElement(TriggerNode, { ...n, selected: false, dragging: false, zIndex: 0, isConnectable: false, positionAbsoluteX: 0, positionAbsoluteY: 0, type: 'trigger', selectable: false, deletable: false, draggable: false } as never)));
    const el = screen.getByTestId('trigger-node');
    expect(el.getAttribute('data-kind')).toBe('file');
    expect(el.textContent).toContain('Watched folder');
    expect(el.textContent).toContain('inbox/*.csv');
  });
});
