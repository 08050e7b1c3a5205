import { describe, expect, it } from 'vitest';
import type { Workflow } from '../types';
import { checkConnection } from './connect';
import { setOnError } from './edit';
import { declaredOutputs } from './handles';
import { toFlowEdges } from './toFlow';

function wf(onError?: 'continue' | 'branch'): Workflow {
  return {
    format: 'weft/v1',
    id: 'w',
    name: 'w',
    nodes: [
      { id: 'a', key: 'fetch', name: 'Fetch', type: 'Tool', params: { tool: 'http_request', arguments: {} }, ...(onError ? { on_error: onError } : {}) },
      { id: 'b', key: 'save', name: 'Save', type: 'Tool', params: { tool: 'write_file', arguments: {} } },
      { id: 'c', key: 'tell', name: 'Tell', type: 'Tool', params: { tool: 'log', arguments: {} } },
      { id: 'i', key: 'ok', name: 'Ok?', type: 'If', params: { condition: 'fetch.success' } },
    ],
    edges: [{ from: 'a', to: 'b' }],
  };
}

describe('error branches in the editor', () => {
  it('shows an Error output only on a step that branches on errors', () => {
    expect(declaredOutputs(wf().nodes[0]).map((h) => h.id)).toEqual(['out']);
    expect(declaredOutputs(wf('continue').nodes[0]).map((h) => h.id)).toEqual(['out']);
    expect(declaredOutputs(wf('branch').nodes[0]).map((h) => h.id)).toEqual(['out', 'error']);
    expect(declaredOutputs(wf('branch').nodes[3]).map((h) => h.id)).toEqual(['true', 'false']);
  });

  it('connects from the Error output with an Error edge, once', () => {
    const w = wf('branch');
    const c = checkConnection(w, { source: 'a', sourceHandle: 'error', target: 'c', targetHandle: 'in' });
    expect(c).toEqual({ ok: true, edge: { from: 'a', to: 'c', output: { type: 'Error' as const } } });
    const w2 = { ...w, edges: [...w.edges, { from: 'a', to: 'c', output: { type: 'Error' as const } }] };
    const again = checkConnection(w2, { source: 'a', sourceHandle: 'error', target: 'i', targetHandle: 'in' });
    expect(again.ok).toBe(false);
    expect(again.ok ? '' : again.reason).toContain('error branch');
    // Without on_error "branch" there is no such output.
    expect(checkConnection(wf(), { source: 'a', sourceHandle: 'error', target: 'c', targetHandle: 'in' }).ok).toBe(false);
  });

  it('draws Error edges in their own style, labelled', () => {
    const w = { ...wf('branch'), edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c', output: { type: 'Error' as const } }] };
    const edges = toFlowEdges(w);
    const err = edges.find((e) => e.target === 'c')!;
    expect(err.sourceHandle).toBe('error');
    expect(err.className).toContain('edge-error');
    expect(err.label).toBe('error');
  });

  it('leaving "Error branch" removes the Error edge; stop is the default, left out', () => {
    const w = { ...wf('branch'), edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c', output: { type: 'Error' as const } }] };
    const cont = setOnError(w, 'a', 'continue');
    expect(cont.nodes[0].on_error).toBe('continue');
    expect(cont.edges).toEqual([{ from: 'a', to: 'b' }]);
    const stop = setOnError(cont, 'a', 'stop');
    expect('on_error' in stop.nodes[0]).toBe(false);
    expect(setOnError(w, 'a', 'branch').edges).toHaveLength(2);
  });
});
