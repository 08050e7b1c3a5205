// The Assistant tab of the sidebar: the conversation about the open
// workflow, the assistant's progress while it works (with Stop), the
// review of a proposed change, and the message box.
import { RepairDetails } from './RepairDetails';
import './assistant.css';
import './buttons.css';
import { CircleAlert, Eraser, LoaderCircle, SendHorizontal, Sparkles, Square } from 'lucide-react';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useStore } from '../../store';
import type { AssistantActions } from '../../store/assistantActions';
import { progressText, receivedText, type ChatEntry } from '../../store/assistantSlice';
import { api } from '../../api';
import { assistantActions } from './actions';
import { Markdown } from './Markdown';
import { ModelSetup, modelMissing, type SetupApi } from './ModelSetup';
import { ReviewBanner } from './ReviewBanner';

const STATE_LABEL: Record<string, string> = {
  proposed: 'under review',
  applied: 'applied',
  discarded: 'discarded',
  undone: 'undone',
};

function Message({ m, progress, received, onPreferences }: { m: ChatEntry; progress: string; received: string; onPreferences: () => void }) {
  // An applied change whose undo step was undone says so.
  const undone = useStore((s) => !!m.appliedDoc && s.future.some((f) => f.doc === m.appliedDoc));
  if (m.role === 'user') {
    return (
      <li className="chat-msg user" data-testid="chat-user" data-entry-id={m.id}>
        <div className="chat-bubble">{m.content}</div>
      </li>
    );
  }
  if (m.state === 'pending') {
    return (
      <li className="chat-msg assistant pending" data-testid="chat-pending">
        <div className="chat-progress" data-testid="assistant-progress" role="status">
          <LoaderCircle size={14} className="spin" />
          <span>{progress || 'Thinking…'}</span>
        </div>
        {received && (
          <div className="chat-received" data-testid="assistant-received">
            {received}
          </div>
        )}
      </li>
    );
  }
  const change = !!m.summary;
  const state = m.state === 'applied' && undone ? 'undone' : m.state;
  if (m.state === 'error') {
    return (
      <li className="chat-msg assistant error" data-testid="chat-assistant" data-kind="error" role="alert">
        <div className="chat-text">
          <CircleAlert size={13} /> {m.content}{' '}
          <button type="button" className="link" onClick={onPreferences} data-testid="assistant-open-preferences">
            Open Preferences
          </button>
        </div>
      </li>
    );
  }
  return (
    <li className={`chat-msg assistant ${state ?? ''}`} data-testid="chat-assistant" data-kind={m.kind ?? ''}>
      <div className="chat-text">{m.state === 'stopped' ? m.content : <Markdown text={m.content} />}</div>
      {change && (
        <div className={`chat-change${m.valid === false ? ' invalid' : ''}`}>
          <span className="chat-change-kind">{m.kind === 'plan' ? 'Plan' : 'Change'}</span>
          <span className="chat-change-summary">{m.summary}</span>
          {m.valid === false && <span className="chat-change-flag">invalid</span>}
          {state && STATE_LABEL[state] && (
            <span className={`chat-change-state ${state}`} data-testid="chat-change-state">
              {STATE_LABEL[state]}
            </span>
          )}
        </div>
      )}
      <RepairDetails tries={m.tries} fixes={m.fixes} />
    </li>
  );
}

export function AssistantPanel({ actions = assistantActions, setupApi = api }: { actions?: AssistantActions; setupApi?: SetupApi }) {
  const doc = useStore((s) => s.doc);
  const path = useStore((s) => s.path);
  const messages = useStore((s) => s.chatMessages);
  const loading = useStore((s) => s.chatLoading);
  const notes = useStore((s) => s.chatNotes);
  const busy = useStore((s) => s.chatBusy);
  const progress = useStore((s) => s.chatProgress);
  const error = useStore((s) => s.chatError);
  const setError = useStore((s) => s.setChatError);
  const openPreferences = useStore((s) => s.setPreferencesOpen);
  const hasProposal = useStore((s) => s.proposal !== null);
  const preferencesOpen = useStore((s) => s.preferencesOpen);
  const [text, setText] = useState('');
  // null: not known yet; true: no model configured, offer the setup.
  const [needsSetup, setNeedsSetup] = useState<boolean | null>(null);
  const [setupNote, setSetupNote] = useState('');
  const listRef = useRef<HTMLOListElement>(null);
  const docId = doc?.id ?? '';
  const empty = (doc?.nodes.length ?? 0) === 0;

  useEffect(() => {
    void actions.loadHistory();
  }, [actions, docId, path]);

  useEffect(() => {
    if (preferencesOpen) return; // checked again when Preferences close
    let live = true;
    // (through a promise: a missing binding is a rejection, not a throw)
    Promise.resolve()
      .then(() => setupApi.getSettings())
      .then(
        (v) => {
          const missing = modelMissing(v.settings.llm);
          useStore.getState().setModelMissing(missing);
          if (live) setNeedsSetup(missing);
        },
        () => live && setNeedsSetup(null),
      );
    return () => {
      live = false;
    };
  }, [setupApi, preferencesOpen]);

  useEffect(() => {
    if (error && /no model is configured/i.test(error)) setNeedsSetup(true);
  }, [error]);

  // A new exchange scrolls to the person's own message, so the question
  // stays in view above its answer (scrolling to the bottom hid it).
  const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.id;
  useEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const el = list.querySelector<HTMLElement>(`[data-entry-id="${lastUser}"]`);
    if (el) list.scrollTop += el.getBoundingClientRect().top - list.getBoundingClientRect().top - 8;
    else list.scrollTop = list.scrollHeight;
  }, [lastUser, messages.length, hasProposal]);

  useEffect(() => {
    const last = messages[messages.length - 1];
    if (last?.state === 'error' && /no model is configured/i.test(last.content)) setNeedsSetup(true);
  }, [messages]);

  const send = () => {
    if (!text.trim() || busy || !doc) return;
    const t = text;
    setText('');
    void actions.send(t);
  };
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };

  return (
    <section className="assistant" aria-label="Assistant" data-testid="assistant-panel">
      <header className="assistant-head">
        <Sparkles size={14} className="assistant-logo" />
        <span className="assistant-title">Assistant</span>
        <button
          type="button"
          className="icon"
          title="Clear the conversation"
          aria-label="Clear the conversation"
          disabled={busy || messages.length === 0}
          onClick={() => void actions.clearHistory()}
        >
          <Eraser size={14} />
        </button>
      </header>

      <ol className="chat-list" ref={listRef} data-testid="chat-list">
        {notes.map((n, i) => (
          <li key={`note-${i}`} className="chat-note">
            {n}
          </li>
        ))}
        {needsSetup && (
          <li className="chat-setup">
            <ModelSetup
              deps={setupApi}
              onPreferences={() => openPreferences(true)}
              onDone={(m) => {
                setNeedsSetup(false);
                useStore.getState().setModelMissing(false);
                setSetupNote(m);
                setError(null);
              }}
            />
          </li>
        )}
        {setupNote && (
          <li className="chat-note" data-testid="setup-done">
            {setupNote}
          </li>
        )}
        {messages.length === 0 && !loading && !needsSetup && (
          <li className="chat-empty" data-testid="chat-empty">
            <Sparkles size={22} />
            {empty ? (
              <>
                <h3>Describe the automation you want</h3>
                <p>The assistant drafts a workflow; you review it on the canvas before it is applied.</p>
              </>
            ) : (
              <>
                <h3>Ask about this workflow</h3>
                <p>Ask for a change (“notify me when the download fails”) or a question. Changes are shown on the canvas for review.</p>
              </>
            )}
          </li>
        )}
        {loading && (
          <li className="chat-note">
            <LoaderCircle size={13} className="spin" /> Loading the conversation…
          </li>
        )}
        {messages.map((m) => (
          <Message key={m.id} m={m} progress={progressText(progress)} received={receivedText(progress)} onPreferences={() => openPreferences(true)} />
        ))}
      </ol>

      {error && (
        <div className="assistant-error" role="alert" data-testid="assistant-error">
          <CircleAlert size={14} />
          <span>
            {error}
            <button type="button" className="link" onClick={() => openPreferences(true)} data-testid="assistant-open-preferences">
              Open Preferences
            </button>
          </span>
          <button type="button" className="icon" aria-label="Dismiss" onClick={() => setError(null)}>
            ×
          </button>
        </div>
      )}

      <ReviewBanner actions={actions} />

      <form
        className="composer"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
          placeholder={empty ? 'Describe the automation you want…' : 'Ask for a change…'}
          aria-label="Message to the assistant"
          data-testid="assistant-input"
          rows={3}
          disabled={!doc}
        />
        <div className="composer-bar">
          <span className="composer-hint">Enter to send · Shift+Enter for a new line</span>
          {busy ? (
            <button type="button" className="btn stop" onClick={() => void actions.stop()} data-testid="assistant-stop">
              <Square size={12} fill="currentColor" /> Stop
            </button>
          ) : (
            <button type="submit" className="btn primary" disabled={!text.trim() || !doc} data-testid="assistant-send">
              <SendHorizontal size={14} /> Send
            </button>
          )}
        </div>
      </form>
    </section>
  );
}

export default AssistantPanel;
