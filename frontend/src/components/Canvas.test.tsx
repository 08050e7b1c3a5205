import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { toFlowEdges, toFlowNodes } from '../graph/toFlow';
import { useStore } from '../store';
import type { Workflow } from '../types';
import { Canvas } from './Canvas';
import { boundsOfNodes, canvasBridge } from './canvasBridge';

const initial = useStore.getState();

/** A plan as the issue saw it: nodes far left of the origin (x −533…139). */
function plan(): Workflow {
  const w = fixtureWorkflow();
  w.nodes = w.nodes.map((n, i) => ({ ...n, position: { x: -533 + i * 134, y: -40 + (i % 2) * 120 } }));
  return w;
}

/** onScreen says whether the box around the nodes is inside the canvas (1200×800 in jsdom) at the current view. */
function onScreen(nodes = useStore.getState().previewNodes ?? useStore.getState().nodes) {
  const b = boundsOfNodes(nodes)!;
  const v = canvasBridge.getViewport()!;
  const left = b.x * v.zoom + v.x;
  const top = b.y * v.zoom + v.y;
  return left >= 0 && top >= 0 && left + b.width * v.zoom <= 1200 && top + b.height * v.zoom <= 800;
}

function preview(w: Workflow) {
  useStore.setState({ previewNodes: toFlowNodes(w), previewEdges: toFlowEdges(w), previewStatus: {} });
}

/** renderPreview draws the canvas with plan() previewed, the view far away from it. */
async function renderPreview() {
  render(<Canvas />);
  await act(async () => preview(plan()));
  await screen.findByTestId('node-n1');
  act(() => canvasBridge.setViewport({ x: 5000, y: 5000, zoom: 1 }));
  expect(onScreen()).toBe(false);
}

beforeEach(() => {
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen({ workflow: { ...fixtureWorkflow(), nodes: [], edges: [] } }));
});

describe('Canvas fitting during a preview', () => {
  it('fits a plan previewed for an empty workflow when asked to fit all', async () => {
    render(<Canvas />);
    await act(async () => {
      preview(plan());
      useStore.getState().requestFitAll();
    });
    await screen.findByTestId('node-n1');
    await waitFor(() => expect(onScreen()).toBe(true));
  });

  it('fits the preview on F, the toolbar and the canvas button (canvasBridge.fitView)', async () => {
    await renderPreview();
    act(() => canvasBridge.fitView({ duration: 0 }));
    await waitFor(() => expect(onScreen()).toBe(true));
  });

  it('fits the workflow once a plan for an empty one is applied', async () => {
    await renderPreview();
    await act(async () => {
      useStore.getState().setWorkflow(plan(), { label: 'Apply assistant plan' });
      useStore.setState({ previewNodes: null, previewEdges: null, previewStatus: null });
    });
    await waitFor(() => expect(onScreen(useStore.getState().nodes)).toBe(true));
  });
});

describe('Canvas first view', () => {
  it('opens a new, empty workflow at full size, not at the zoom of the one before', async () => {
    useStore.getState().loadDocument(fixtureOpen());
    render(<Canvas />);
    await screen.findByTestId('node-n1');
    act(() => canvasBridge.setViewport({ x: 10, y: 10, zoom: 0.3 }));
    await act(async () => useStore.getState().newDocument());
    await waitFor(() => expect(canvasBridge.getViewport()?.zoom).toBe(1));
  });

  it('opens a workflow too wide to read when fitted at a readable zoom (the fixture in the 1200×800 test canvas)', async () => {
    useStore.getState().loadDocument(fixtureOpen());
    render(<Canvas />);
    await screen.findByTestId('node-n1');
    // As it opens (React Flow starts at zoom 1): from far out, then asked for the opening view.
    act(() => canvasBridge.setViewport({ x: 10, y: 10, zoom: 0.3 }));
    await act(async () => useStore.getState().requestFitAll());
    await waitFor(() => expect(canvasBridge.getViewport()?.zoom).toBeGreaterThanOrEqual(0.75)); // text about 10 px
  });
});

describe('Canvas start view', () => {
  it('shows the entry whole when even the first steps are wider than the canvas at a readable zoom', async () => {
    const w = fixtureWorkflow(); // n1 is the entry, at x 0
    w.nodes = w.nodes.map((n, i) => ({ ...n, position: { x: i * 900, y: 0 } }));
    useStore.getState().loadDocument(fixtureOpen({ workflow: w }));
    render(<Canvas />);
    await screen.findByTestId('node-n1');
    act(() => canvasBridge.setViewport({ x: 10, y: 10, zoom: 0.3 }));
    await act(async () => useStore.getState().requestFitAll());
    await waitFor(() => expect(canvasBridge.getViewport()?.zoom).toBeGreaterThanOrEqual(0.75));
    const entry = useStore.getState().nodes.filter((n) => n.id === 'n1');
    expect(onScreen(entry)).toBe(true);
  });
});

describe('Canvas right-click', () => {
  it('selects the node it opens the menu on, unless it is part of the selection', async () => {
    useStore.getState().loadDocument(fixtureOpen());
    render(<Canvas />);
    const n3 = await screen.findByTestId('node-n3');
    fireEvent.contextMenu(n3);
    expect(useStore.getState().selectedNodeIds).toEqual(['n3']);
    act(() => useStore.getState().selectNodes(['n1', 'n2']));
    fireEvent.contextMenu(await screen.findByTestId('node-n2'));
    expect(useStore.getState().selectedNodeIds).toEqual(['n1', 'n2']);
  });
});

describe('Canvas empty state', () => {
  it('offers the examples gallery, reachable by keyboard', async () => {
    render(<Canvas />);
    const button = await screen.findByTestId('empty-examples-button');
    expect(button.tagName).toBe('BUTTON');
    expect(useStore.getState().examplesOpen).toBe(false);
    fireEvent.click(button);
    expect(useStore.getState().examplesOpen).toBe(true);
  });
});
