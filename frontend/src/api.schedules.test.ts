import { describe, expect, it, vi } from 'vitest';

vi.mock('../wailsjs/runtime/runtime', () => ({}));
vi.mock('./gen/bindings', () => ({
  PreviewCron: vi.fn(async () => ({ words: 'at 07:00, on weekdays', next: null })),
  PreviewSchedule: vi.fn(async () => ({ id: 'daily-1', entry: '0 7 * * 1-5 cd … # weft-schedule:daily-1' })),
  AddSchedule: vi.fn(async () => ({ started: true, problems: null, approval: null, warnings: null, entry: '0 7 * * 1-5 …' })),
}));

import { api } from './api';

// What Go says of a schedule reaches the dialog whole.
describe('api: schedules', () => {
  it('keeps the words a cron expression is said in', async () => {
    expect(await api.previewCron('0 7 * * 1-5')).toEqual({ words: 'at 07:00, on weekdays', next: [] });
  });
  it('passes the entry shown and the entry installed', async () => {
    expect((await api.previewSchedule({ path: '/f.json', cron: '0 7 * * 1-5', engine: 'local', pinned: false, approved: [] })).entry).toContain('weft-schedule:daily-1');
    expect((await api.addSchedule({ path: '/f.json', cron: '0 7 * * 1-5', engine: 'local', pinned: false, approved: [] })).entry).toBe('0 7 * * 1-5 …');
  });
});
