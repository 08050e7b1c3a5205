// Schedules: the workflows that run on a cron expression ("every weekday at
// 7"), by this computer's scheduler (a systemd user timer or crontab entry
// that runs this app's binary as `weft run FILE`, headless) or by a
// Temporal service. The dialog lists them with how their runs went and when
// they run next, pauses, resumes and removes them, and schedules the open
// workflow as saved. The checks (validation, the approval of model-written
// steps, for their exact content) are the backend's, the same as
// `weft schedule add`'s: a scheduled run cannot ask anybody.
import '../assistant/buttons.css';
import '../preferences/preferences.css';
import './schedules.css';
import { CalendarClock, CircleAlert, LoaderCircle, Pause, Play, Trash2, TriangleAlert, X } from 'lucide-react';
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { api, errorMessage, type Api } from '../../api';
import { useStore } from '../../store';
import { baseName } from '../../store/workflowSlice';
import type { CronPreview, InputField, InputProblem, NewSchedule, ScheduleState, SchedulesView, ShownEntry } from '../../types';
import { InputFields } from '../run/InputFields';
import { given, initialValues } from '../run/inputsForm';
import { useFocusTrap } from '../focusTrap';
import { ScheduleApproval, type StepsWaiting } from './ScheduleApproval';

export type SchedulesApi = Pick<Api, 'listSchedules' | 'addSchedule' | 'previewSchedule' | 'setSchedulePaused' | 'removeSchedule' | 'previewCron'> &
  Partial<Pick<Api, 'workflowInputs'>>;

/** Common schedules, as cron expressions. */
export const PRESETS: { label: string; cron: string }[] = [
  { label: 'Every hour', cron: '0 * * * *' },
  { label: 'Every day at 7:00', cron: '0 7 * * *' },
  { label: 'Weekdays at 7:00', cron: '0 7 * * 1-5' },
  { label: 'Mondays at 9:00', cron: '0 9 * * 1' },
  { label: 'First of the month at 8:00', cron: '0 8 1 * *' },
];

export function when(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toLocaleString(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

function runsOn(s: ScheduleState): string {
  if (s.backend === 'temporal') return `Temporal at ${s.temporal?.address ?? '?'}`;
  return `this computer (${s.backend})`;
}

type Pending = StepsWaiting & { req: NewSchedule };

/** picked is the request's secret_inputs: the stored secrets chosen, by input (none: left out). */
function picked(refs: Record<string, string>): Pick<NewSchedule, 'secret_inputs'> {
  const chosen = Object.fromEntries(Object.entries(refs).filter(([, v]) => v));
  return Object.keys(chosen).length ? { secret_inputs: chosen } : {};
}

/** What the scheduler gets, said by who reads it. */
function entryIntro(scheduler: string | undefined): string {
  if (scheduler === 'cron') return 'Weft will add this line to your crontab:';
  if (scheduler === 'systemd') return 'Weft will write these systemd user units and start the timer:';
  return "Weft will give this computer's scheduler:";
}

function ScheduleRow({
  s,
  busy,
  onPause,
  onRemove,
}: {
  s: ScheduleState;
  busy: boolean;
  onPause: (paused: boolean) => void;
  onRemove: () => void;
}) {
  const [confirm, setConfirm] = useState(false);
  const name = baseName(s.file);
  return (
    <li className={`sched-row${s.attention ? ' attention' : ''}${s.paused ? ' paused' : ''}`} data-testid="schedule-row" data-id={s.id}>
      <div className="sched-main">
        <div className="sched-name">
          <strong title={s.file}>{name}</strong> <code>{s.cron}</code>
          {s.words && <span className="sched-words" data-testid="schedule-words">{s.words}</span>}
          {s.args?.includes('--pinned') && <span className="sched-tag">pinned data</span>}
        </div>
        <div className="sched-detail">
          {s.attention && <TriangleAlert size={13} className="sched-warn" aria-label="needs attention" />}
          <span data-testid="schedule-state">{s.state}</span>
        </div>
        <div className="sched-detail muted">
          {s.paused ? 'Paused' : s.next ? `Next: ${when(s.next)}` : 'No run within a year'} · runs on {runsOn(s)}
        </div>
        <div className="sched-file muted" title={s.file}>
          {s.file}
        </div>
      </div>
      <div className="sched-actions">
        <button type="button" className="btn" disabled={busy} onClick={() => onPause(!s.paused)} aria-label={`${s.paused ? 'Resume' : 'Pause'} ${name}`} data-testid="schedule-pause">
          {s.paused ? <Play size={13} /> : <Pause size={13} />} {s.paused ? 'Resume' : 'Pause'}
        </button>
        {confirm ? (
          <>
            <button type="button" className="btn danger" disabled={busy} onClick={onRemove} data-testid="schedule-remove-confirm" autoFocus>
              Remove
            </button>
            <button type="button" className="btn" onClick={() => setConfirm(false)}>
              Keep
            </button>
          </>
        ) : (
          <button type="button" className="btn" disabled={busy} onClick={() => setConfirm(true)} aria-label={`Remove the schedule of ${name}`} data-testid="schedule-remove">
            <Trash2 size={13} /> Remove
          </button>
        )}
      </div>
    </li>
  );
}

export function SchedulesDialog({ onClose, apiImpl = api }: { onClose: () => void; apiImpl?: SchedulesApi }) {
  const uid = useId();
  const box = useRef<HTMLDivElement>(null);
  useFocusTrap(box);
  const path = useStore((s) => s.path);
  const dirty = useStore((s) => s.dirty);
  const doc = useStore((s) => s.doc);
  const hasDoc = !!doc;
  const toast = useStore((s) => s.toast);

  const [view, setView] = useState<SchedulesView | null>(null);
  const [loadError, setLoadError] = useState('');
  const [actionError, setActionError] = useState('');
  const [busy, setBusy] = useState(false);
  const [cron, setCron] = useState('0 7 * * *');
  const [preview, setPreview] = useState<CronPreview | null>(null);
  const [engine, setEngine] = useState<'local' | 'temporal'>('local');
  const [pinned, setPinned] = useState(false);
  const [addError, setAddError] = useState<{ message: string; problems: string[] } | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  // The scheduler's entry, shown before it is installed (local engine).
  const [review, setReview] = useState<{ req: NewSchedule; shown: ShownEntry } | null>(null);
  const installRef = useRef<HTMLButtonElement>(null);
  // The workflow's declared inputs: each scheduled run gets the values given here.
  const [fields, setFields] = useState<InputField[]>([]);
  const [values, setValues] = useState<Record<string, string>>({});
  const [inputProblems, setInputProblems] = useState<InputProblem[]>([]);
  // A secret input is scheduled by a stored secret's name, never a value.
  const [secretNames, setSecretNames] = useState<string[]>([]);
  const [refs, setRefs] = useState<Record<string, string>>({});

  const reload = useCallback(async () => {
    try {
      const v = await apiImpl.listSchedules();
      setView(v);
      setLoadError('');
      if (!v.scheduler && v.temporal) setEngine('temporal');
    } catch (e) {
      setLoadError(errorMessage(e));
    }
  }, [apiImpl]);

  useEffect(() => {
    void reload();
  }, [reload]);

  // The cron expression is checked (and its next runs shown) as it is typed.
  useEffect(() => {
    let live = true;
    const t = setTimeout(() => {
      apiImpl
        .previewCron(cron)
        .then((p) => live && setPreview(p))
        .catch((e) => live && setPreview({ error: errorMessage(e), next: [] }));
    }, 150);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [cron, apiImpl]);

  useEffect(() => {
    let live = true;
    if (!doc || !path || typeof apiImpl.workflowInputs !== 'function') return;
    apiImpl
      .workflowInputs(doc)
      .then((form) => {
        if (!live) return;
        setFields(form.fields);
        setValues(initialValues(path, form.fields));
        setSecretNames(form.secrets ?? []);
      })
      .catch(() => live && setFields([])); // the schedule's own check says what is wrong
    return () => {
      live = false;
    };
  }, [doc, path, apiImpl]);

  // What was shown is no longer what would be installed.
  useEffect(() => setReview(null), [cron, engine, pinned, path, values, refs]);
  useEffect(() => {
    if (review) installRef.current?.focus();
  }, [review]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !pending) {
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose, pending]);

  async function act(f: () => Promise<void>) {
    setBusy(true);
    setActionError('');
    try {
      await f();
    } catch (e) {
      setActionError(errorMessage(e));
    } finally {
      setBusy(false);
      await reload();
    }
  }

  // A local schedule's entry is shown first; Install sends it back, and
  // Go installs it only if it is still exactly that.
  async function submit(req: NewSchedule) {
    if (req.engine !== 'local') return add(req);
    setBusy(true);
    setAddError(null);
    try {
      const shown = await apiImpl.previewSchedule(req);
      setInputProblems(shown.input_problems ?? []);
      if (shown.input_problems?.length) setAddError({ message: 'The schedule was not made: its inputs do not fit.', problems: [] });
      else setReview({ req, shown });
    } catch (e) {
      setAddError({ message: errorMessage(e), problems: [] });
    } finally {
      setBusy(false);
    }
  }

  async function add(req: NewSchedule) {
    setBusy(true);
    setAddError(null);
    try {
      const r = await apiImpl.addSchedule(req);
      if (!r.approval.length) setReview(null);
      setInputProblems(r.input_problems ?? []);
      if (r.started) {
        setPending(null);
        toast(`Scheduled ${baseName(req.path)} (${req.cron}).`, 'info');
        for (const w of r.warnings) toast(w, 'info');
        await reload();
      } else if (r.approval.length) {
        // Steps a model wrote wait: the person sees them in full first.
        setPending({ req, steps: r.approval, approved: pending?.approved ?? [], error: pending ? r.error : undefined });
      } else {
        setPending(null);
        setAddError({ message: r.error || 'The schedule was not made.', problems: r.problems.map((p) => p.message) });
      }
    } catch (e) {
      if (pending) setPending({ ...pending, error: errorMessage(e) });
      else setAddError({ message: errorMessage(e), problems: [] });
    } finally {
      setBusy(false);
    }
  }

  if (pending) {
    return <ScheduleApproval pending={pending} onChange={setPending} onSubmit={(approved) => void add({ ...pending.req, approved })} />;
  }

  const fid = (n: string) => `${uid}-${n}`;
  const canLocal = !!view?.scheduler;
  const canTemporal = !!view?.temporal;
  const engineOK = engine === 'local' ? canLocal : canTemporal;
  const why = !hasDoc
    ? 'Open a workflow to schedule it.'
    : !path
      ? 'Save the workflow to a file first: a schedule runs the file.'
      : dirty
        ? 'Save your changes first: a schedule runs the file as saved.'
        : '';
  const cronOK = !!preview && !preview.error && preview.next.length > 0;
  const schedules = view?.schedules ?? [];

  return (
    <div className="prefs-overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="prefs schedules" role="dialog" aria-modal="true" aria-labelledby={fid('title')} data-testid="schedules-dialog" ref={box}>
        <header className="prefs-head">
          <CalendarClock size={16} />
          <h2 id={fid('title')}>Schedules</h2>
          <button type="button" className="icon" aria-label="Close" onClick={onClose}>
            <X size={16} />
          </button>
        </header>
        <div className="prefs-body">
          <fieldset>
            <legend>Schedule this workflow</legend>
            {why ? (
              <p className="muted sched-why" data-testid="schedule-why">
                {why}
              </p>
            ) : (
              <form
                className="sched-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (cronOK && engineOK && !busy) void submit({ path, cron: cron.trim(), engine, pinned, approved: [], ...(fields.length ? { inputs: given(fields, values) } : {}), ...picked(refs) });
                }}
              >
                <p className="sched-file" title={path}>
                  <code>{path}</code>
                </p>
                <div className="prefs-field">
                  <label htmlFor={fid('preset')}>When</label>
                  <div className="prefs-control">
                    <select id={fid('preset')} value={PRESETS.some((p) => p.cron === cron.trim()) ? cron.trim() : ''} onChange={(e) => e.target.value && setCron(e.target.value)} data-testid="schedule-preset">
                      {PRESETS.map((p) => (
                        <option key={p.cron} value={p.cron}>
                          {p.label}
                        </option>
                      ))}
                      <option value="">Custom (cron expression)</option>
                    </select>
                  </div>
                </div>
                <div className="prefs-field">
                  <label htmlFor={fid('cron')}>Cron expression</label>
                  <div className="prefs-control">
                    <input
                      id={fid('cron')}
                      className="mono"
                      value={cron}
                      onChange={(e) => setCron(e.target.value)}
                      aria-invalid={!!preview?.error}
                      aria-describedby={fid('cron-help')}
                      spellCheck={false}
                      data-testid="schedule-cron"
                    />
                    <div id={fid('cron-help')} className={preview?.error ? 'prefs-error' : 'prefs-help'} data-testid="schedule-preview" aria-live="polite">
                      {preview?.error
                        ? preview.error
                        : preview
                          ? `${preview.words ? `${preview.words[0].toUpperCase()}${preview.words.slice(1)}. ` : ''}Next runs: ${preview.next.map(when).join(' · ')}`
                          : 'minute hour day-of-month month day-of-week, e.g. 0 7 * * 1-5'}
                    </div>
                  </div>
                </div>
                <div className="prefs-field">
                  <label htmlFor={fid('engine')}>Runs on</label>
                  <div className="prefs-control">
                    <select id={fid('engine')} value={engine} onChange={(e) => setEngine(e.target.value === 'temporal' ? 'temporal' : 'local')} data-testid="schedule-engine">
                      <option value="local" disabled={!canLocal}>
                        {canLocal ? `This computer (${view?.scheduler}), even when Weft is closed` : 'This computer (no scheduler found)'}
                      </option>
                      <option value="temporal" disabled={!canTemporal}>
                        {canTemporal ? `Temporal at ${view?.temporal}` : 'Temporal (set a service in Preferences → Engine)'}
                      </option>
                    </select>
                    <div className="prefs-help">
                      {engine === 'local'
                        ? canLocal
                          ? 'Runs headless; a run that would ask you something stops instead. Runs are logged beside the file; a failed or missed run is shown when Weft opens.'
                          : view?.no_scheduler
                        : 'The Temporal schedule keeps the workflow as it is now: schedule it again to take later changes.'}
                    </div>
                  </div>
                </div>
                <div className="prefs-field">
                  <span />
                  <label className="sched-check">
                    <input type="checkbox" checked={pinned} onChange={(e) => setPinned(e.target.checked)} data-testid="schedule-pinned" /> Use the workflow's pinned
                    data
                  </label>
                </div>
                {fields.length > 0 && (
                  <div className="sched-inputs" data-testid="schedule-inputs">
                    <p className="prefs-help">
                      Each run gets these inputs (<code>{'{{inputs.NAME}}'}</code>, inserted as data); they are kept with the schedule in plain text.
                    </p>
                    <InputFields
                      uid={fid('in')}
                      fields={fields}
                      values={values}
                      problems={inputProblems}
                      set={(name, v) => setValues((s) => ({ ...s, [name]: v }))}
                      stored={{ names: secretNames, refs, set: (name, secret) => setRefs((s) => ({ ...s, [name]: secret })), only: true }}
                      autoFocus={false}
                    />
                  </div>
                )}
                {addError && (
                  <div className="prefs-banner error" role="alert" data-testid="schedule-add-error">
                    <CircleAlert size={14} />
                    <div>
                      {addError.message}
                      {addError.problems.length > 0 && (
                        <ul>
                          {addError.problems.map((p, i) => (
                            <li key={i}>{p}</li>
                          ))}
                        </ul>
                      )}
                    </div>
                  </div>
                )}
                {review ? (
                  <div className="sched-entry" data-testid="schedule-review">
                    <p>{entryIntro(view?.scheduler)}</p>
                    <pre tabIndex={0} aria-label="The scheduler's entry" data-testid="schedule-entry">
                      {review.shown.entry}
                    </pre>
                    <div className="prefs-buttons">
                      <button type="button" className="btn" onClick={() => setReview(null)} data-testid="schedule-back">
                        Back
                      </button>
                      <button
                        type="button"
                        ref={installRef}
                        className="btn primary"
                        disabled={busy}
                        onClick={() => void add({ ...review.req, shown: review.shown })}
                        data-testid="schedule-install"
                      >
                        {busy && <LoaderCircle size={14} className="spin" />} Install
                      </button>
                    </div>
                  </div>
                ) : (
                  <div className="prefs-buttons">
                    <button type="submit" className="btn primary" disabled={!cronOK || !engineOK || busy} data-testid="schedule-add">
                      {busy && <LoaderCircle size={14} className="spin" />} Schedule
                    </button>
                  </div>
                )}
              </form>
            )}
          </fieldset>

          <fieldset>
            <legend>All schedules</legend>
            {loadError && (
              <div className="prefs-banner error" role="alert">
                <CircleAlert size={14} /> The schedules could not be read: {loadError}
              </div>
            )}
            {actionError && (
              <div className="prefs-banner error" role="alert" data-testid="schedule-action-error">
                <CircleAlert size={14} /> {actionError}
              </div>
            )}
            {!view && !loadError ? (
              <p className="muted">
                <LoaderCircle size={14} className="spin" /> Loading…
              </p>
            ) : schedules.length === 0 ? (
              <p className="muted" data-testid="schedules-empty">
                No schedules yet.
              </p>
            ) : (
              <ul className="sched-list" aria-label="Schedules">
                {schedules.map((s) => (
                  <ScheduleRow
                    key={s.id}
                    s={s}
                    busy={busy}
                    onPause={(p) => void act(() => apiImpl.setSchedulePaused(s.id, p))}
                    onRemove={() => void act(() => apiImpl.removeSchedule(s.id))}
                  />
                ))}
              </ul>
            )}
          </fieldset>
        </div>
      </div>
    </div>
  );
}

export default SchedulesDialog;
