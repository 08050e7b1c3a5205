// The Tests tab: the cases beside the saved workflow (NAME.tests.json),
// played against the editor's copy with nothing acting (Go: app_tests.go,
// backend/testcase). Run all, or one; a failing case shows each way it
// differs (step, expected against actual); Record makes a case from the
// last run and names the steps to fill in; a case's mocks are edited as
// JSON, saved only when Go finds them valid (its error shows at the field).
import '../preferences/preferences.css';
import '../run/run.css';
import './tests.css';
import { CircleAlert, CircleCheck, CircleX, Circle, FlaskConical, LoaderCircle, Pencil, Play, RefreshCw, TriangleAlert } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { useStore } from '../../store';
import type { CaseMocks, TestCaseResult, TestFailure, Workflow } from '../../types';
import { testsActions as defaultActions } from './actions';
import { RecordCaseDialog } from './RecordCaseDialog';
import type { TestsActions } from './testsActions';

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** shown is an expected or actual value as JSON: text quoted, so a trailing
 * newline or a space that differs shows. */
export function shown(v: unknown): string {
  if (v === undefined) return '(nothing)';
  return JSON.stringify(v, null, 2) ?? '(nothing)'; // it came as JSON: it goes back as JSON
}

function stepName(doc: Workflow | null, id: string): string {
  const n = doc?.nodes.find((x) => x.id === id);
  return n?.name || n?.key || id;
}

function FailureView({ f, doc }: { f: TestFailure; doc: Workflow | null }) {
  const both = f.expected !== undefined || f.actual !== undefined;
  return (
    <li className="tests-failure" data-testid="test-failure" data-what={f.what} data-step={f.step ?? ''}>
      <div className="tests-failure-head">
        {f.step && <span className="tests-step">{stepName(doc, f.step)}</span>}
        <span className="tests-what">{f.what}</span>
      </div>
      <p className="tests-message">{f.message}</p>
      {both && (
        <dl className="tests-diff">
          <dt>Expected</dt>
          <dd>
            <pre data-testid="test-expected">{shown(f.expected)}</pre>
          </dd>
          <dt>Actual</dt>
          <dd>
            <pre data-testid="test-actual">{shown(f.actual)}</pre>
          </dd>
        </dl>
      )}
    </li>
  );
}

function MocksEditor({ c, onSave, onClose }: { c: CaseMocks; onSave: (text: string) => Promise<string>; onClose: () => void }) {
  const uid = useId();
  const [text, setText] = useState(c.mocks);
  const [error, setError] = useState('');
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    const err = await onSave(text);
    setSaving(false);
    if (err) setError(err);
    else onClose();
  };
  return (
    <form
      className="tests-mocks"
      data-testid="mocks-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label htmlFor={`${uid}-m`}>Mocks of “{c.name}” (JSON)</label>
      <textarea
        id={`${uid}-m`}
        className="mono"
        rows={Math.min(18, Math.max(6, text.split('\n').length + 1))}
        spellCheck={false}
        autoFocus
        value={text}
        aria-invalid={!!error}
        aria-describedby={error ? `${uid}-e` : `${uid}-h`}
        onChange={(e) => {
          setText(e.target.value);
          setError('');
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            void save();
          }
        }}
        data-testid="mocks-text"
      />
      {error ? (
        <span id={`${uid}-e`} className="prefs-error" role="alert" data-testid="mocks-error">
          {error}
        </span>
      ) : (
        <span id={`${uid}-h`} className="prefs-help">
          commands, http, mcp and ai, as docs/file-format.md says. Saved only when valid (Ctrl+Enter saves).
        </span>
      )}
      <div className="tests-row-actions">
        <button type="button" className="btn" onClick={onClose} data-testid="mocks-cancel">
          Cancel
        </button>
        <button type="submit" className="btn primary" disabled={saving || text === c.mocks} data-testid="mocks-save">
          {saving ? <LoaderCircle size={13} className="spin" /> : null} Save mocks
        </button>
      </div>
    </form>
  );
}

function CaseRow({
  c,
  result,
  stale,
  running,
  busy,
  doc,
  actions,
}: {
  c: CaseMocks;
  result: TestCaseResult | undefined;
  stale: boolean;
  running: boolean;
  busy: boolean;
  doc: Workflow | null;
  actions: TestsActions;
}) {
  const [editing, setEditing] = useState(false);
  const editBtn = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);
  useEffect(() => {
    // Focus goes back to the button that opened the editor.
    if (wasEditing.current && !editing) editBtn.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  const state = running ? 'running' : !result ? 'none' : result.passed ? 'pass' : 'fail';
  const label = { running: 'playing…', none: 'not run', pass: 'passes', fail: 'fails' }[state];
  return (
    <li className={`tests-case ${state}`} data-testid="test-case" data-name={c.name} data-state={state}>
      <div className="tests-case-head">
        <span className="tests-badge" aria-hidden="true">
          {state === 'running' ? (
            <LoaderCircle size={14} className="spin" />
          ) : state === 'pass' ? (
            <CircleCheck size={14} />
          ) : state === 'fail' ? (
            <CircleX size={14} />
          ) : (
            <Circle size={14} />
          )}
        </span>
        <span className="tests-case-name" title={c.name}>
          {c.name}
        </span>
        <span className="tests-case-state" data-testid="test-case-state">
          {label}
          {stale && result ? ' (before your last change)' : ''}
        </span>
        <button type="button" className="btn" disabled={busy} onClick={() => void actions.run(c.name)} aria-label={`Run case ${c.name}`} data-testid="test-case-run">
          <Play size={12} /> Run
        </button>
        <button
          type="button"
          className="btn"
          ref={editBtn}
          aria-expanded={editing}
          aria-label={`Edit the mocks of ${c.name}`}
          onClick={() => setEditing((e) => !e)}
          data-testid="test-case-edit"
        >
          <Pencil size={12} /> Mocks
        </button>
      </div>
      {result && !result.passed && (
        <div className="tests-case-detail">
          {result.error && <p className="tests-message">The run stopped: {result.error}</p>}
          <ul className="tests-failures" aria-label={`How ${c.name} differs`}>
            {result.failures.map((f, i) => (
              <FailureView key={i} f={f} doc={doc} />
            ))}
          </ul>
        </div>
      )}
      {editing && <MocksEditor c={c} onSave={(text) => actions.saveMocks(c.name, text)} onClose={() => setEditing(false)} />}
    </li>
  );
}

export function TestsPanel({ actions = defaultActions }: { actions?: TestsActions }) {
  const doc = useStore((s) => s.doc);
  const path = useStore((s) => s.path);
  const dirty = useStore((s) => s.dirty);
  const testsPath = useStore((s) => s.testsPath);
  const storedFile = useStore((s) => s.caseFile);
  const loading = useStore((s) => s.caseFileLoading);
  const storedReadError = useStore((s) => s.caseFileError);
  const testReport = useStore((s) => s.testReport);
  const reportDoc = useStore((s) => s.testReportDoc);
  const storedRunError = useStore((s) => s.testRunError);
  const storedProblems = useStore((s) => s.testRunProblems);
  const running = useStore((s) => s.testsRunning);
  const [recording, setRecording] = useState(false);

  useEffect(() => {
    void actions.load();
  }, [actions, path]);

  if (!path) {
    return (
      <div className="run tests" data-testid="tests-panel">
        <div className="run-body">
          <p className="run-note muted" data-testid="tests-unsaved">
            <FlaskConical size={14} /> Save the workflow first: its test cases live beside its file (NAME.tests.json), for git.
          </p>
        </div>
      </div>
    );
  }
  // Until load has run for a newly opened or saved-as file, the state is another file's.
  const mine = testsPath === path;
  const caseFile = mine ? storedFile : null;
  const cases = caseFile?.cases ?? [];
  const report = mine ? testReport : null;
  const runError = mine ? storedRunError : '';
  const runProblems = mine ? storedProblems : [];
  const readError = mine ? storedReadError : '';
  const busy = running !== null;
  const resultOf = (name: string) => report?.cases.find((c) => c.name === name);
  const stale = !!report && reportDoc !== doc;

  return (
    <div className="run tests" data-testid="tests-panel">
      <header className="run-head tests-head">
        <button type="button" className="btn primary" disabled={busy || !cases.length || !doc} onClick={() => void actions.run('')} data-testid="tests-run-all">
          {running === '' ? <LoaderCircle size={13} className="spin" /> : <Play size={13} />} Run all
        </button>
        <button type="button" className="btn" onClick={() => setRecording(true)} data-testid="tests-record">
          Record from last run
        </button>
        <button
          type="button"
          className="icon"
          title="Read the case file again (after an edit elsewhere, or weft test --record)"
          aria-label="Reload the cases"
          disabled={loading}
          onClick={() => void actions.load()}
          data-testid="tests-reload"
        >
          <RefreshCw size={14} />
        </button>
        <span className="tests-summary" role="status" aria-live="polite" data-testid="tests-summary">
          {running !== null
            ? running
              ? `Playing “${running}”…`
              : 'Playing the cases…'
            : report
              ? `${report.passed} of ${report.passed + report.failed} pass${stale ? ' (played before your last change)' : ''}`
              : ''}
        </span>
      </header>
      <div className="run-body">
        <p className="tests-about muted">
          Cases play against the editor’s copy{dirty ? ' (your unsaved changes included)' : ''}; nothing runs for real.
          {caseFile?.file ? (
            <>
              {' '}
              File: <code>{caseFile.file}</code>
            </>
          ) : null}
        </p>
        {loading && !caseFile && <p className="run-note muted">Reading the cases…</p>}
        {(readError || caseFile?.error) && (
          <div className="prefs-banner error" role="alert" data-testid="tests-file-error">
            <CircleAlert size={14} /> {readError || caseFile?.error}
          </div>
        )}
        {runError && (
          <div className="prefs-banner error" role="alert" data-testid="tests-run-error">
            <CircleAlert size={14} />
            <div>
              {runError}
              {runProblems.length > 0 && (
                <ul>
                  {runProblems.map((p, i) => (
                    <li key={i}>{p.message}</li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        )}
        {report && report.unapproved.length > 0 && (
          <div className="prefs-banner warning" data-testid="tests-unapproved">
            <TriangleAlert size={14} /> {plural(report.unapproved.length, 'step')} would wait for your approval before a real run (a test runs nothing).
          </div>
        )}
        {caseFile && !caseFile.error && !cases.length && (
          <p className="run-note" data-testid="tests-empty">
            No cases yet. Run the workflow, then <em>Record from last run</em> makes one from what it did, or write one (docs/file-format.md, “Test
            cases”).
          </p>
        )}
        {cases.length > 0 && (
          <ul className="tests-cases" aria-label="Test cases">
            {cases.map((c) => (
              <CaseRow
                key={c.name}
                c={c}
                result={resultOf(c.name)}
                stale={stale}
                running={running === '' || running === c.name}
                busy={busy}
                doc={doc}
                actions={actions}
              />
            ))}
          </ul>
        )}
      </div>
      {recording && <RecordCaseDialog dirty={dirty} record={actions.record} onClose={() => setRecording(false)} />}
    </div>
  );
}
