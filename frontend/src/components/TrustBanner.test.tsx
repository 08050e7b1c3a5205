// A file Weft did not write or the person did not review: the banner above
// the canvas says so and why, Review… opens the approval dialog on what it
// holds, and the banner goes once Go trusts the file (asked again after an
// open, a save, an approval).
import { act, fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';
import type { FileTrust } from '../types';

vi.mock('../api', () => ({
  api: {
    openWorkflow: vi.fn(),
    saveWorkflow: vi.fn(async () => {}),
    saveWorkflowAsDialog: vi.fn(),
    validateWorkflow: vi.fn(async () => ({ valid: true, problems: [] })),
    workflowFileTrust: vi.fn(),
    log: vi.fn(),
    addRecentFile: vi.fn(async () => []),
    removeRecentFile: vi.fn(async () => []),
    setDirty: vi.fn(async () => {}),
    clearAutosave: vi.fn(async () => {}),
    autosave: vi.fn(async () => {}),
    onCloseRequested: vi.fn(() => () => {}),
  },
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { api } from '../api';
import { useStore } from '../store';
import { makeActions } from '../store/actions';
import { refreshFileTrust } from '../store/trustSlice';
import { makeRunActions, type RunApi } from './run/runActions';
import { approvalStep } from './run/runFixtures';
import { TrustBanner } from './TrustBanner';

const mocked = vi.mocked(api);
const initial = useStore.getState();

const WHY = 'Weft did not write this file and you have not reviewed it (cloned, downloaded or written elsewhere)';
const cloned: FileTrust = { path: '/tmp/fixture.json', trusted: false, why: WHY, changed: false };
const reviewed: FileTrust = { path: '/tmp/fixture.json', trusted: true, why: 'as reviewed (desktop) on 2026-01-02 10:00', changed: false };

beforeEach(() => {
  useStore.setState(initial, true);
  vi.clearAllMocks();
});

describe('TrustBanner', () => {
  it('shows, above the canvas, why a file opened is not trusted; Review… starts the review', () => {
    const review = vi.fn(async () => {});
    useStore.getState().loadDocument(fixtureOpen({ file: cloned }));
    render(<TrustBanner actions={{ review }} />);
    const banner = screen.getByTestId('trust-banner');
    expect(banner.textContent).toBe(`Not reviewed: ${WHY} — nothing in it runs until you review itReview…`);
    fireEvent.click(screen.getByTestId('trust-review'));
    expect(review).toHaveBeenCalledTimes(1);
  });

  it('says nothing for a trusted file, a new document, or trust known for another path', () => {
    const review = vi.fn(async () => {});
    render(<TrustBanner actions={{ review }} />);
    for (const load of [
      () => useStore.getState().loadDocument(fixtureOpen({ file: reviewed })),
      () => useStore.getState().newDocument(),
      () => useStore.getState().loadDocument(fixtureOpen({ file: { ...cloned, path: '' }, path: '' })),
      () => {
        useStore.getState().loadDocument(fixtureOpen({ file: cloned }));
        useStore.getState().markSaved('/tmp/elsewhere.json'); // Save As: trust not asked yet
      },
    ]) {
      act(load);
      expect(screen.queryByTestId('trust-banner')).toBeNull();
    }
    act(() => useStore.getState().loadDocument(fixtureOpen({ file: cloned })));
    expect(screen.getByTestId('trust-banner')).toBeTruthy();
  });
});

describe('file trust in the actions', () => {
  it('takes the trust an open brings; asks for a restored file and after a save, with the path it came from', async () => {
    const actions = makeActions(useStore);
    mocked.openWorkflow.mockResolvedValueOnce(fixtureOpen({ file: cloned }));
    await actions.openPath('/tmp/fixture.json');
    expect(useStore.getState().fileTrust).toEqual(cloned);
    expect(mocked.workflowFileTrust).not.toHaveBeenCalled();

    // A restored autosave carries no trust: its file's is asked for.
    mocked.workflowFileTrust.mockResolvedValueOnce(cloned);
    await actions.show(fixtureOpen({ path: '/tmp/fixture.json' }), { dirty: true });
    await vi.waitFor(() => expect(mocked.workflowFileTrust).toHaveBeenCalledWith('/tmp/fixture.json'));
    expect(useStore.getState().fileTrust).toEqual(cloned);

    // Saving: Go carries trust over (or not) from where the document came from; the banner follows.
    mocked.workflowFileTrust.mockResolvedValueOnce(reviewed);
    await actions.save();
    expect(mocked.saveWorkflow).toHaveBeenCalledWith('/tmp/fixture.json', useStore.getState().doc, '/tmp/fixture.json');
    await vi.waitFor(() => expect(useStore.getState().fileTrust).toEqual(reviewed));
  });

  it('asks again when the window comes back (the file may have been edited elsewhere)', async () => {
    const actions = makeActions(useStore);
    useStore.getState().loadDocument(fixtureOpen({ file: reviewed }));
    const stop = actions.watch();
    mocked.workflowFileTrust.mockResolvedValueOnce({ ...cloned, changed: true });
    window.dispatchEvent(new Event('focus'));
    await vi.waitFor(() => expect(useStore.getState().fileTrust).toEqual({ ...cloned, changed: true }));
    stop();
    window.dispatchEvent(new Event('focus'));
    expect(mocked.workflowFileTrust).toHaveBeenCalledTimes(1);
  });

  it('drops an answer for a path the document left meanwhile', async () => {
    useStore.getState().loadDocument(fixtureOpen({ file: reviewed }));
    let answer!: (t: FileTrust) => void;
    const pending = refreshFileTrust(useStore, () => new Promise<FileTrust>((r) => (answer = r)));
    useStore.getState().loadDocument(fixtureOpen({ path: '/tmp/other.json', file: { ...reviewed, path: '/tmp/other.json' } }));
    answer(cloned);
    await pending;
    expect(useStore.getState().fileTrust?.path).toBe('/tmp/other.json');
    expect(useStore.getState().fileTrust?.trusted).toBe(true);
  });
});

describe('reviewing a file', () => {
  function runApi(over: Partial<Record<keyof RunApi, unknown>> = {}) {
    return {
      startRun: vi.fn(),
      approveSteps: vi.fn(async () => []),
      pendingApprovals: vi.fn(async () => []),
      workflowFileTrust: vi.fn(async () => reviewed),
      log: vi.fn(),
      ...over,
    } as unknown as RunApi & Record<string, ReturnType<typeof vi.fn>>;
  }

  it('opens the dialog on what waits, in the Run tab; approving the last step trusts the file and the banner goes', async () => {
    useStore.getState().loadDocument(fixtureOpen({ file: cloned }));
    const step = approvalStep({ origin: 'file', fingerprint: 'fp1' });
    const fake = runApi({ pendingApprovals: vi.fn(async () => [step]) });
    const run = makeRunActions(useStore, fake);
    render(<TrustBanner actions={run} />);
    fireEvent.click(screen.getByTestId('trust-review'));
    await vi.waitFor(() => expect(useStore.getState().runApproval).toEqual({ steps: [step], approved: [] }));
    expect(fake.pendingApprovals).toHaveBeenCalledWith(useStore.getState().doc, '/tmp/fixture.json');
    expect(useStore.getState().sidebarTab).toBe('run');
    expect(screen.getByTestId('trust-banner')).toBeTruthy();

    await act(() => run.approveOnly());
    expect(fake.approveSteps).toHaveBeenCalledWith(useStore.getState().doc, '/tmp/fixture.json', ['fp1']);
    expect(useStore.getState().runApproval).toBeNull();
    expect(useStore.getState().fileTrust).toEqual(reviewed);
    expect(screen.queryByTestId('trust-banner')).toBeNull();
  });

  it('when nothing in the file acts or routes, records that (Go trusts it) and says so', async () => {
    useStore.getState().loadDocument(fixtureOpen({ file: cloned }));
    const fake = runApi();
    await makeRunActions(useStore, fake).review();
    expect(fake.approveSteps).toHaveBeenCalledWith(useStore.getState().doc, '/tmp/fixture.json', []);
    expect(useStore.getState().runApproval).toBeNull();
    expect(useStore.getState().toasts.map((t) => t.text)).toEqual([expect.stringMatching(/nothing to review/)]);
    expect(useStore.getState().fileTrust).toEqual(reviewed);
  });

  it('a run refused for review asks for the trust again (the file may have changed on disk)', async () => {
    useStore.getState().loadDocument(fixtureOpen({ file: reviewed }));
    const step = approvalStep({ origin: 'file', fingerprint: 'fp1', previous: '{}' });
    const fake = runApi({
      startRun: vi.fn(async () => ({ started: false, error: 'review', problems: [], approval: [step], warnings: [] })),
      workflowFileTrust: vi.fn(async () => ({ ...cloned, changed: true })),
    });
    await makeRunActions(useStore, fake).start();
    expect(useStore.getState().runApproval?.steps).toEqual([step]);
    expect(useStore.getState().fileTrust).toEqual({ ...cloned, changed: true });
  });
});
