import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ScheduleUpdateResult } from '../../types';

vi.mock('../../api', () => ({
  api: {},
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import { approvalStep } from '../run/runFixtures';
import { OUTCOME_LABEL } from '../run/format';
import { ScheduleUpdatePrompt, type ScheduleUpdateApi } from './ScheduleUpdatePrompt';

const path = '/home/u/flows/daily.json';
const updated = { id: 'daily-a1', file: path, cron: '0 7 * * *', backend: 'systemd', paused: false, created: '2026-11-20T10:00:00Z' };

function result(over: Partial<ScheduleUpdateResult> = {}): ScheduleUpdateResult {
  return { started: false, error: '', problems: [], approval: [], warnings: [], updated: [], ...over };
}

let fake: { updateSchedules: ReturnType<typeof vi.fn> };
let toast: ReturnType<typeof vi.fn>;

function open() {
  render(<ScheduleUpdatePrompt apiImpl={fake as unknown as ScheduleUpdateApi} />);
}

beforeEach(() => {
  fake = { updateSchedules: vi.fn() };
  toast = vi.fn();
  useStore.setState({ scheduleUpdate: { path, schedules: [updated] }, toast: toast as never });
});

describe('ScheduleUpdatePrompt', () => {
  it('shows nothing when no saved file has schedules to update', () => {
    useStore.setState({ scheduleUpdate: null });
    open();
    expect(screen.queryByTestId('schedule-update')).toBeNull();
  });

  it('updates the schedules of the saved file, and says so', async () => {
    fake.updateSchedules.mockResolvedValue(result({ started: true, updated: [updated] }));
    open();
    expect(screen.getByTestId('schedule-update').textContent).toContain('daily.json');
    expect(screen.getByTestId('schedule-update').textContent).toContain('needs review');
    fireEvent.click(screen.getByTestId('schedule-update-confirm'));
    await waitFor(() => expect(useStore.getState().scheduleUpdate).toBeNull());
    expect(fake.updateSchedules).toHaveBeenCalledWith(path, []);
    expect(toast).toHaveBeenCalledWith(expect.stringContaining('Updated the schedule of daily.json'), 'info');
  });

  it('shows what waits for approval in full, and updates with exactly what was approved', async () => {
    const step = approvalStep();
    fake.updateSchedules.mockResolvedValueOnce(result({ approval: [step], error: 'waits for approval' }));
    fake.updateSchedules.mockResolvedValueOnce(result({ started: true, updated: [updated] }));
    open();
    fireEvent.click(screen.getByTestId('schedule-update-confirm'));
    const approve = await screen.findByRole('button', { name: /approve all/i });
    expect(useStore.getState().scheduleUpdate).not.toBeNull();
    fireEvent.click(approve);
    await waitFor(() => expect(useStore.getState().scheduleUpdate).toBeNull());
    expect(fake.updateSchedules).toHaveBeenLastCalledWith(path, [step.fingerprint]);
  });

  it('says why an update failed and keeps the offer; Not now leaves the schedules as they are', async () => {
    fake.updateSchedules.mockResolvedValue(result({ error: 'the workflow is not valid', problems: [{ code: 'x', severity: 'error', message: 'If lacks a branch', node_ids: [], edges: null }] }));
    open();
    fireEvent.click(screen.getByTestId('schedule-update-confirm'));
    expect((await screen.findByTestId('schedule-update-error')).textContent).toContain('If lacks a branch');
    fireEvent.click(screen.getByTestId('schedule-update-later'));
    expect(useStore.getState().scheduleUpdate).toBeNull();
    expect(fake.updateSchedules).toHaveBeenCalledTimes(1);
  });
});

describe('outcomes', () => {
  it('names a run refused for review as what it is', () => {
    expect(OUTCOME_LABEL.needs_review).toBe('Needs review');
  });
});
