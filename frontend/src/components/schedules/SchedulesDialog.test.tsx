import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalStep, ScheduleState, SchedulesView } from '../../types';

vi.mock('../../api', () => ({
  api: {},
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import { SchedulesDialog, type SchedulesApi } from './SchedulesDialog';
import { approvalStep } from '../run/runFixtures';

const daily: ScheduleState = {
  id: 'daily-a1b2c3',
  file: '/home/u/flows/daily.json',
  cron: '0 7 * * *',
  paused: false,
  backend: 'systemd',
  created: '2026-11-20T10:00:00Z',
  state: 'last run 2026-11-25 07:00: failed',
  last_run: '2026-11-25T07:00:00Z',
  last_outcome: 'failed',
  next: '2026-11-26T07:00:00Z',
  changed: false,
  attention: true,
};

function view(over: Partial<SchedulesView> = {}): SchedulesView {
  return { schedules: [daily], scheduler: 'systemd', temporal: '', ...over };
}

const step: ApprovalStep = approvalStep();
const entry = { id: 'report-1', entry: '# ~/.config/systemd/user/weft-report-1.service\n[Service]\nExecStart=:"/opt/weft" "run"\n' };

/** Schedule, then Install after the entry is shown. */
async function scheduleAndInstall() {
  await waitFor(() => expect(screen.getByTestId<HTMLButtonElement>('schedule-add').disabled).toBe(false));
  fireEvent.click(screen.getByTestId('schedule-add'));
  fireEvent.click(await screen.findByTestId('schedule-install'));
}

let fake: { [K in keyof SchedulesApi]: ReturnType<typeof vi.fn> };
let onClose: ReturnType<typeof vi.fn>;

function open() {
  render(<SchedulesDialog onClose={onClose as unknown as () => void} apiImpl={fake as unknown as SchedulesApi} />);
}

beforeEach(() => {
  fake = {
    listSchedules: vi.fn().mockResolvedValue(view()),
    addSchedule: vi.fn(),
    previewSchedule: vi.fn(async () => entry),
    setSchedulePaused: vi.fn().mockResolvedValue(undefined),
    removeSchedule: vi.fn().mockResolvedValue(undefined),
    previewCron: vi.fn(async (c: string) => (c.startsWith('61') ? { error: 'minute 61: want 0-59', next: [] } : { next: ['2026-11-26T07:00:00Z', '2026-11-27T07:00:00Z'] })),
  };
  onClose = vi.fn();
  useStore.setState({ path: '/home/u/flows/report.json', dirty: false, doc: { format: 'weft/v1', id: 'r', name: 'Report', nodes: [], edges: [] } });
});

describe('SchedulesDialog', () => {
  it('lists schedules with their state, next run and who runs them; a failed last run is marked', async () => {
    open();
    const row = await screen.findByTestId('schedule-row');
    expect(row.className).toContain('attention');
    expect(within(row).getByTestId('schedule-state').textContent).toBe('last run 2026-11-25 07:00: failed');
    expect(row.textContent).toContain('daily.json');
    expect(row.textContent).toContain('0 7 * * *');
    expect(row.textContent).toContain('runs on this computer (systemd)');
    expect(row.textContent).toContain('Next:');
  });

  it('pauses, and removes only after a second click', async () => {
    open();
    const row = await screen.findByTestId('schedule-row');
    fireEvent.click(within(row).getByTestId('schedule-pause'));
    await waitFor(() => expect(fake.setSchedulePaused).toHaveBeenCalledWith('daily-a1b2c3', true));
    fireEvent.click(within(row).getByTestId('schedule-remove'));
    expect(fake.removeSchedule).not.toHaveBeenCalled();
    fireEvent.click(within(row).getByTestId('schedule-remove-confirm'));
    await waitFor(() => expect(fake.removeSchedule).toHaveBeenCalledWith('daily-a1b2c3'));
    // Each action reads the list again once it is done.
    await waitFor(() => expect(fake.listSchedules.mock.calls.length).toBeGreaterThanOrEqual(3));
  });

  it('says why an action failed', async () => {
    fake.setSchedulePaused.mockRejectedValueOnce(new Error('systemctl --user disable: exit status 1'));
    open();
    fireEvent.click(within(await screen.findByTestId('schedule-row')).getByTestId('schedule-pause'));
    expect((await screen.findByTestId('schedule-action-error')).textContent).toContain('systemctl --user disable');
  });

  it('says the cron expression in words, in the form and in the list', async () => {
    fake.listSchedules.mockResolvedValue(view({ schedules: [{ ...daily, words: 'at 07:00, every day' }] }));
    fake.previewCron.mockImplementation(async () => ({ words: 'at 07:00, on weekdays', next: ['2026-11-26T07:00:00Z'] }));
    open();
    expect((await screen.findByTestId('schedule-words')).textContent).toBe('at 07:00, every day');
    await waitFor(() => expect(screen.getByTestId('schedule-preview').textContent).toMatch(/^At 07:00, on weekdays\. Next runs:/));
  });

  it('checks the cron expression as it is typed', async () => {
    open();
    await waitFor(() => expect(screen.getByTestId('schedule-preview').textContent).toContain('Next runs:'));
    fireEvent.change(screen.getByTestId('schedule-cron'), { target: { value: '61 * * * *' } });
    await waitFor(() => expect(screen.getByTestId('schedule-preview').textContent).toBe('minute 61: want 0-59'));
    expect(screen.getByTestId('schedule-cron').getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId<HTMLButtonElement>('schedule-add').disabled).toBe(true);
    fireEvent.change(screen.getByTestId('schedule-preset'), { target: { value: '0 7 * * 1-5' } });
    expect(screen.getByTestId<HTMLInputElement>('schedule-cron').value).toBe('0 7 * * 1-5');
  });

  it('schedules only the file as saved', async () => {
    useStore.setState({ dirty: true });
    open();
    expect((await screen.findByTestId('schedule-why')).textContent).toContain('Save your changes first');
    expect(screen.queryByTestId('schedule-add')).toBeNull();
    act(() => useStore.setState({ path: '', dirty: false }));
    expect(screen.getByTestId('schedule-why').textContent).toContain('Save the workflow to a file first');
  });

  it('shows the model-written steps in full, and schedules with exactly the approved fingerprints', async () => {
    fake.addSchedule
      .mockResolvedValueOnce({ started: false, error: '1 step … needs your approval', problems: [], approval: [step], warnings: [] })
      .mockResolvedValueOnce({ started: true, problems: [], approval: [], warnings: [], schedule: { id: 'report-1', file: '/home/u/flows/report.json', cron: '0 7 * * *', backend: 'systemd' } });
    open();
    await scheduleAndInstall();
    const dlg = await screen.findByTestId('approval-dialog');
    expect(fake.addSchedule).toHaveBeenLastCalledWith({ path: '/home/u/flows/report.json', cron: '0 7 * * *', engine: 'local', pinned: false, approved: [], shown: entry });
    expect(within(dlg).getByTestId('approval-args').textContent).toContain('curl https://example.com');
    expect(within(dlg).getByTestId('approve-run').textContent).toBe('Approve all and schedule');
    fireEvent.click(within(dlg).getByTestId('approve-run'));
    await waitFor(() => expect(screen.queryByTestId('approval-dialog')).toBeNull());
    expect(fake.addSchedule).toHaveBeenLastCalledWith({ path: '/home/u/flows/report.json', cron: '0 7 * * *', engine: 'local', pinned: false, approved: ['fp-fetch'], shown: entry });
    expect(useStore.getState().toasts.some((t) => t.text.includes('Scheduled report.json'))).toBe(true);
  });

  it('lists the problems of a workflow that cannot be scheduled', async () => {
    fake.addSchedule.mockResolvedValueOnce({
      started: false,
      error: 'workflow is invalid',
      problems: [{ code: 'edge_unknown_node', message: 'edge a → nowhere: no node nowhere', severity: 'error' }],
      approval: [],
      warnings: [],
    });
    open();
    await scheduleAndInstall();
    expect((await screen.findByTestId('schedule-add-error')).textContent).toContain('no node nowhere');
  });

  it('shows the entry the scheduler gets before installing it, and installs only on Install', async () => {
    fake.addSchedule.mockResolvedValue({ started: true, problems: [], approval: [], warnings: [], schedule: { id: 'report-1', file: '/home/u/flows/report.json', cron: '0 7 * * *', backend: 'systemd' } });
    open();
    await waitFor(() => expect(screen.getByTestId<HTMLButtonElement>('schedule-add').disabled).toBe(false));
    fireEvent.click(screen.getByTestId('schedule-add'));
    const review = await screen.findByTestId('schedule-review');
    expect(fake.previewSchedule).toHaveBeenCalledWith({ path: '/home/u/flows/report.json', cron: '0 7 * * *', engine: 'local', pinned: false, approved: [] });
    expect(review.textContent).toContain('systemd user units');
    expect(within(review).getByTestId('schedule-entry').textContent).toBe(entry.entry);
    expect(document.activeElement).toBe(within(review).getByTestId('schedule-install'));
    expect(fake.addSchedule).not.toHaveBeenCalled();
    // Back, or a change to what was asked, takes the entry away unseen-installed.
    fireEvent.click(within(review).getByTestId('schedule-back'));
    expect(screen.queryByTestId('schedule-review')).toBeNull();
    fireEvent.click(screen.getByTestId('schedule-add'));
    await screen.findByTestId('schedule-review');
    fireEvent.click(screen.getByTestId('schedule-pinned'));
    expect(screen.queryByTestId('schedule-review')).toBeNull();
    fireEvent.click(screen.getByTestId('schedule-pinned'));
    fireEvent.click(screen.getByTestId('schedule-add'));
    fireEvent.click(await screen.findByTestId('schedule-install'));
    await waitFor(() => expect(fake.addSchedule).toHaveBeenCalledTimes(1));
    expect(fake.addSchedule).toHaveBeenCalledWith({ path: '/home/u/flows/report.json', cron: '0 7 * * *', engine: 'local', pinned: false, approved: [], shown: entry });
    await waitFor(() => expect(screen.queryByTestId('schedule-review')).toBeNull());
  });

  it('asks for the inputs each run gets, shows Go’s problems at their fields, and schedules with them', async () => {
    const fields = [
      { name: 'name', type: 'string', required: true },
      { name: 'n', type: 'integer', required: false, default: 3 },
    ];
    const withInputs = { ...fake, workflowInputs: vi.fn(async () => ({ fields, problems: [] })) };
    fake.previewSchedule
      .mockResolvedValueOnce({ id: '', entry: '', input_problems: [{ input: 'name', message: 'input name is required' }] })
      .mockResolvedValueOnce(entry);
    fake.addSchedule.mockResolvedValue({ started: true, problems: [], approval: [], warnings: [], schedule: { id: 'report-1', file: '/home/u/flows/report.json', cron: '0 7 * * *', backend: 'systemd' } });
    render(<SchedulesDialog onClose={onClose as unknown as () => void} apiImpl={withInputs as unknown as SchedulesApi} />);
    const box = await screen.findByTestId('schedule-inputs');
    const inputs = within(box).getAllByTestId<HTMLInputElement>('run-input');
    expect(inputs.map((i) => i.dataset.name)).toEqual(['name', 'n']);
    expect(inputs[1].value).toBe('3'); // the default
    await waitFor(() => expect(screen.getByTestId<HTMLButtonElement>('schedule-add').disabled).toBe(false));
    fireEvent.click(screen.getByTestId('schedule-add'));
    const err = await within(box).findByTestId('run-input-error');
    expect(err.dataset.name).toBe('name');
    expect(err.textContent).toBe('input name is required');
    expect(screen.queryByTestId('schedule-review')).toBeNull();
    fireEvent.change(inputs[0], { target: { value: 'Ada' } });
    await scheduleAndInstall();
    await waitFor(() => expect(fake.addSchedule).toHaveBeenCalled());
    expect(fake.previewSchedule).toHaveBeenLastCalledWith(expect.objectContaining({ inputs: { name: 'Ada', n: '3' } }));
    expect(fake.addSchedule).toHaveBeenLastCalledWith(expect.objectContaining({ inputs: { name: 'Ada', n: '3' }, shown: entry }));
  });

  it('schedules a secret input only with a stored secret, by name', async () => {
    const fields = [
      { name: 'name', type: 'string', required: true, secret: false },
      { name: 'token', type: 'string', required: true, secret: true },
    ];
    const withInputs = { ...fake, workflowInputs: vi.fn(async () => ({ fields, problems: [], secrets: ['API_TOKEN'] })) };
    fake.addSchedule.mockResolvedValue({ started: true, problems: [], approval: [], warnings: [], schedule: { id: 'report-1', file: '/home/u/flows/report.json', cron: '0 7 * * *', backend: 'systemd' } });
    render(<SchedulesDialog onClose={onClose as unknown as () => void} apiImpl={withInputs as unknown as SchedulesApi} />);
    const box = await screen.findByTestId('schedule-inputs');
    const stored = within(box).getByTestId<HTMLSelectElement>('run-input-stored');
    expect([...stored.options].map((o) => o.textContent)).toEqual(['— choose a stored secret —', 'Stored secret API_TOKEN']);
    // No field to type the secret's value in: a schedule keeps no value.
    expect(within(box).getAllByTestId('run-input').map((e) => e.dataset.name)).toEqual(['name']);
    fireEvent.change(within(box).getAllByTestId('run-input')[0], { target: { value: 'Ada' } });
    fireEvent.change(stored, { target: { value: 'API_TOKEN' } });
    await scheduleAndInstall();
    await waitFor(() => expect(fake.addSchedule).toHaveBeenCalled());
    expect(fake.addSchedule).toHaveBeenLastCalledWith(expect.objectContaining({ inputs: { name: 'Ada' }, secret_inputs: { token: 'API_TOKEN' } }));
  });

  it('makes a Temporal schedule without an entry on this computer to show', async () => {
    fake.listSchedules.mockResolvedValue(view({ scheduler: '', temporal: 'temporal.example:7233', schedules: [] }));
    fake.addSchedule.mockResolvedValue({ started: true, problems: [], approval: [], warnings: [] });
    open();
    await screen.findByTestId('schedules-empty');
    await waitFor(() => expect(screen.getByTestId<HTMLButtonElement>('schedule-add').disabled).toBe(false));
    fireEvent.click(screen.getByTestId('schedule-add'));
    await waitFor(() => expect(fake.addSchedule).toHaveBeenCalledWith({ path: '/home/u/flows/report.json', cron: '0 7 * * *', engine: 'temporal', pinned: false, approved: [] }));
    expect(fake.previewSchedule).not.toHaveBeenCalled();
  });

  it('offers Temporal only when a service is set, and picks it when this computer has no scheduler', async () => {
    fake.listSchedules.mockResolvedValue(view({ scheduler: '', no_scheduler: 'no systemd user session and no crontab', temporal: 'temporal.example:7233', schedules: [] }));
    open();
    await screen.findByTestId('schedules-empty');
    const engine = screen.getByTestId<HTMLSelectElement>('schedule-engine');
    expect(engine.value).toBe('temporal');
    expect((engine.querySelector('option[value="local"]') as HTMLOptionElement).disabled).toBe(true);
    expect(engine.textContent).toContain('Temporal at temporal.example:7233');
  });
});
