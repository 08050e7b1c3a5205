import { render, screen, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../store';
import { Canvas } from './Canvas';
import { ProblemBadge } from './WeftNode';

const initial = useStore.getState();

beforeEach(() => {
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen());
});

describe('WeftNode', () => {
  it('draws every node with its name, key and param summary', async () => {
    render(<Canvas />);
    const tool = await screen.findByTestId('node-n1');
    expect(within(tool).getByText('List files')).toBeInTheDocument();
    expect(within(tool).getByText('list')).toBeInTheDocument();
    expect(within(tool).getByText('fs.list(path=".")')).toBeInTheDocument();
    expect(await screen.findByTestId('node-n2')).toHaveTextContent('until loop.index >= 3 · max 10');
    expect(await screen.findByTestId('node-n6')).toHaveTextContent('back to Each file');
  });

  it('has typed handles for If, Switch, Loop and EndLoop', async () => {
    render(<Canvas />);
    await screen.findByTestId('node-n3');
    // The view fits the workflow once it is drawn; then every node is in view.
    await screen.findByTestId('node-n6');
    for (const id of ['handle-n3-true', 'handle-n3-false', 'handle-n5-case:small', 'handle-n5-case:big', 'handle-n5-default', 'handle-n2-body', 'handle-n2-done', 'handle-n6-back']) {
      expect(screen.getByTestId(id)).toBeInTheDocument();
    }
    expect(screen.queryByTestId('handle-n3-out')).toBeNull();
    expect(within(screen.getByTestId('node-n5')).getByText('small')).toBeInTheDocument();
  });

  it('puts handles left/right for left-to-right drawings and top/bottom for top-to-bottom ones', async () => {
    const { unmount } = render(<Canvas />);
    expect(await screen.findByTestId('handle-n3-true')).toHaveClass('react-flow__handle-right');
    expect(await screen.findByTestId('handle-n6-back')).toHaveClass('react-flow__handle-bottom');
    expect(await screen.findByTestId('handle-n2-back-in')).toHaveClass('react-flow__handle-bottom');
    unmount();

    const tb = fixtureOpen();
    for (const n of tb.workflow!.nodes) n.position = { x: n.position!.y, y: n.position!.x };
    useStore.getState().loadDocument(tb);
    render(<Canvas />);
    expect(await screen.findByTestId('handle-n3-true')).toHaveClass('react-flow__handle-bottom');
    expect(await screen.findByTestId('handle-n2-back-in')).toHaveClass('react-flow__handle-right');
    expect(await screen.findByTestId('node-n3')).toHaveClass('dir-TB');
  });

  it('shows a disabled node as disabled', async () => {
    render(<Canvas />);
    const n = await screen.findByTestId('node-n4');
    expect(n).toHaveClass('disabled');
    expect(n).toHaveTextContent('disabled');
  });

  it('badges nodes red for errors and amber for warnings', async () => {
    render(<Canvas />);
    await screen.findByTestId('node-n1');
    expect(screen.queryAllByTestId('problem-badge')).toHaveLength(0);
    useStore.getState().setValidation({
      valid: false,
      problems: [
        { code: 'unknown_tool', severity: 'warning', message: 'no such tool', node_ids: ['n1'], edges: null },
        { code: 'bad_condition', severity: 'error', message: 'bad', node_ids: ['n3'], edges: null },
        { code: 'cycle', severity: 'warning', message: 'w', node_ids: ['n3'], edges: null },
      ],
    });
    const warn = await within(screen.getByTestId('node-n1')).findByTestId('problem-badge');
    expect(warn).toHaveAttribute('data-severity', 'warning');
    expect(warn).toHaveClass('warning');
    const err = within(await screen.findByTestId('node-n3')).getByTestId('problem-badge');
    expect(err).toHaveAttribute('data-severity', 'error');
    expect(err).toHaveTextContent('1');
    expect(screen.getByTestId('node-n3')).toHaveClass('has-error');
  });

  it('ProblemBadge renders nothing without problems', () => {
    const { container } = render(<ProblemBadge problems={[]} />);
    expect(container).toBeEmptyDOMElement();
  });
});
