// After a save: the saved file is scheduled, and its schedules run the
// content approved when they were made, refusing any other (needs
// review). The prompt offers to update them to the file as saved; the
// checks (validation, approval of what a model wrote or of a file to
// review) are the backend's, as when a schedule is made, so what waits is
// shown in full in the approval dialog first.
import '../assistant/buttons.css';
import '../preferences/preferences.css';
import './schedules.css';
import { CalendarClock, CircleAlert, LoaderCircle } from 'lucide-react';
import { useId, useRef, useState } from 'react';
import { api, errorMessage, type Api } from '../../api';
import { useStore } from '../../store';
import { baseName } from '../../store/workflowSlice';
import { useFocusTrap } from '../focusTrap';
import { ScheduleApproval, type StepsWaiting } from './ScheduleApproval';

export type ScheduleUpdateApi = Pick<Api, 'updateSchedules'>;

export function ScheduleUpdatePrompt({ apiImpl = api }: { apiImpl?: ScheduleUpdateApi }) {
  const offer = useStore((s) => s.scheduleUpdate);
  const close = useStore((s) => s.setScheduleUpdate);
  const toast = useStore((s) => s.toast);
  const uid = useId();
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box, !!offer);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [pending, setPending] = useState<StepsWaiting | null>(null);
  if (!offer) return null;
  const name = baseName(offer.path);

  async function update(approved: string[]) {
    if (!offer) return;
    setBusy(true);
    setError('');
    try {
      const r = await apiImpl.updateSchedules(offer.path, approved);
      if (r.started) {
        setPending(null);
        close(null);
        toast(`Updated the schedule of ${name}: its next runs run it as saved.`, 'info');
        for (const w of r.warnings) toast(w, 'info');
      } else if (r.approval.length) {
        setPending({ steps: r.approval, approved: pending?.approved ?? [], error: pending ? r.error : undefined });
      } else {
        setPending(null);
        setError([r.error || 'The schedule was not updated.', ...r.problems.map((p) => p.message)].join(' '));
      }
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  if (pending) {
    return <ScheduleApproval pending={pending} onChange={setPending} onSubmit={(approved) => void update(approved)} />;
  }

  return (
    <div className="prefs-overlay">
      <div className="prefs schedules" role="alertdialog" aria-modal="true" aria-labelledby={`${uid}-t`} aria-describedby={`${uid}-d`} ref={box} data-testid="schedule-update">
        <header className="prefs-head">
          <CalendarClock size={16} />
          <h2 id={`${uid}-t`}>Update the schedule?</h2>
        </header>
        <div className="prefs-body">
          <p id={`${uid}-d`}>
            <strong>{name}</strong> is scheduled ({offer.schedules.map((s) => s.cron).join(', ')}). A schedule runs the file as it was when you scheduled
            it: until you update it, its runs are refused and marked <em>needs review</em>.
          </p>
          {error && (
            <div className="prefs-banner error" role="alert" data-testid="schedule-update-error">
              <CircleAlert size={14} /> {error}
            </div>
          )}
          <div className="prefs-buttons">
            <button type="button" className="btn" onClick={() => close(null)} disabled={busy} data-testid="schedule-update-later">
              Not now
            </button>
            <button type="button" className="btn primary" onClick={() => void update([])} disabled={busy} data-testid="schedule-update-confirm" autoFocus>
              {busy && <LoaderCircle size={14} className="spin" />} Update the schedule
            </button>
          </div>
        </div>
      </div>
    </div>
  );
}

export default ScheduleUpdatePrompt;
