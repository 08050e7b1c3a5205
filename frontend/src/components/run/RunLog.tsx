// The event log: newest at the bottom, following new entries while scrolled
// to the end; filtered to steps (default), problems or everything, and by
// text.
import { ArrowDown, Search } from 'lucide-react';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { visibleLog, type LogFilter, type RunLogEntry } from '../../store/runSlice';
import type { RunLink } from '../../types';
import { clock } from './format';
import './run.css';

const FILTERS: { id: LogFilter; label: string; title: string }[] = [
  { id: 'steps', label: 'Steps', title: 'Steps, branches, problems and the run (no attempts or outputs)' },
  { id: 'problems', label: 'Problems', title: 'Failures, retries, escalations, warnings' },
  { id: 'all', label: 'All', title: 'Every event, outputs and tool calls too' },
];

export function RunLog({
  entries,
  filter,
  query,
  onFilter,
  onQuery,
  dropped = 0,
  empty = 'No events yet: press Run.',
  onOpenRun,
}: {
  entries: RunLogEntry[];
  filter: LogFilter;
  query: string;
  onFilter(f: LogFilter): void;
  onQuery(q: string): void;
  dropped?: number;
  empty?: string;
  /** opens a sub-workflow's run an entry names; absent, none is offered */
  onOpenRun?(link: RunLink): void;
}) {
  const shown = useMemo(() => visibleLog(entries, filter, query), [entries, filter, query]);
  const list = useRef<HTMLOListElement>(null);
  const [stick, setStick] = useState(true);

  useLayoutEffect(() => {
    const el = list.current;
    if (el && stick) el.scrollTop = el.scrollHeight;
  }, [shown, stick]);

  const onScroll = () => {
    const el = list.current;
    if (!el) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
    if (atEnd !== stick) setStick(atEnd);
  };

  return (
    <div className="run-log" data-testid="run-log">
      <div className="run-log-bar">
        <div className="seg" role="radiogroup" aria-label="Show">
          {FILTERS.map((f) => (
            <button
              key={f.id}
              type="button"
              role="radio"
              aria-checked={filter === f.id}
              className={filter === f.id ? 'on' : ''}
              title={f.title}
              onClick={() => onFilter(f.id)}
              data-testid={`log-filter-${f.id}`}
            >
              {f.label}
            </button>
          ))}
        </div>
        <label className="run-log-search">
          <Search size={12} />
          <input
            type="search"
            placeholder="Filter"
            value={query}
            onChange={(e) => onQuery(e.target.value)}
            aria-label="Filter the log"
            data-testid="log-search"
          />
        </label>
        <span className="run-log-count muted" data-testid="log-count">
          {shown.length === entries.length ? entries.length : `${shown.length}/${entries.length}`}
        </span>
      </div>
      <ol className="run-log-list" ref={list} onScroll={onScroll} aria-live="polite">
        {dropped > 0 && <li className="run-log-dropped muted">{dropped} earlier events are only in the run folder</li>}
        {shown.length === 0 && <li className="run-log-empty muted">{entries.length ? 'Nothing matches the filter.' : empty}</li>}
        {shown.map((l) => (
          <li key={l.seq} className={`log-entry ${l.level} g-${l.group}`} data-testid="log-entry" data-type={l.type}>
            <span className="log-time">{clock(l.time, true)}</span>
            {l.node && <span className="log-node">{l.node}</span>}
            <span className="log-text">{l.text}</span>
            {l.subRun && onOpenRun && (
              <button type="button" className="linkish" onClick={() => onOpenRun(l.subRun!)} data-testid="log-open-sub-run">
                Open its run
              </button>
            )}
          </li>
        ))}
      </ol>
      {!stick && (
        <button
          type="button"
          className="run-log-latest"
          onClick={() => {
            setStick(true);
            const el = list.current;
            if (el) el.scrollTop = el.scrollHeight;
          }}
        >
          <ArrowDown size={12} /> Latest
        </button>
      )}
    </div>
  );
}
