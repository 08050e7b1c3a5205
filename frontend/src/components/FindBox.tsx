// Ctrl+F on the canvas: find a node by name or key. Enter (and the arrows)
// go from match to match, selecting and centring each; Esc closes.
import { ChevronDown, ChevronUp, X } from 'lucide-react';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useStore } from '../store';
import type { Workflow } from '../types';

/** findNodes lists the ids of nodes whose name or key contains q (any case), in document order. */
export function findNodes(w: Workflow | null, q: string): string[] {
  const t = q.trim().toLowerCase();
  if (!w || !t) return [];
  return w.nodes.filter((n) => n.name.toLowerCase().includes(t) || n.key.toLowerCase().includes(t)).map((n) => n.id);
}

export function FindBox() {
  const open = useStore((s) => s.findOpen);
  const setOpen = useStore((s) => s.setFindOpen);
  const doc = useStore((s) => s.doc);
  const selectNodes = useStore((s) => s.selectNodes);
  const [q, setQ] = useState('');
  const [at, setAt] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const matches = useMemo(() => findNodes(doc, q), [doc, q]);

  useEffect(() => {
    if (open) window.setTimeout(() => input.current?.select(), 0);
  }, [open]);

  if (!open) return null;
  const go = (i: number) => {
    if (!matches.length) return;
    const k = ((i % matches.length) + matches.length) % matches.length;
    setAt(k);
    selectNodes([matches[k]], { focus: true });
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if ((e.key === 'Enter' && e.shiftKey) || e.key === 'ArrowUp') {
      e.preventDefault();
      go(at - 1);
    } else if (e.key === 'Enter' || e.key === 'ArrowDown') {
      e.preventDefault();
      // Typing selected the first match already: Enter goes on from it.
      const shown = matches[at] === useStore.getState().selectedNodeIds[0];
      go(shown ? at + 1 : at);
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
    }
  };
  return (
    <div className="find-box" role="search" data-testid="find-box">
      <input
        ref={input}
        type="search"
        aria-label="Find a node by name or key"
        placeholder="Find a node by name or key"
        value={q}
        onChange={(e) => {
          setQ(e.target.value);
          setAt(0);
          const first = findNodes(doc, e.target.value)[0];
          if (first) selectNodes([first], { focus: true });
        }}
        onKeyDown={onKey}
        data-testid="find-input"
      />
      <span className="find-count" data-testid="find-count" aria-live="polite">
        {q.trim() ? (matches.length ? `${at + 1} of ${matches.length}` : 'no match') : ''}
      </span>
      <button type="button" className="icon" aria-label="Previous match" disabled={!matches.length} onClick={() => go(at - 1)}>
        <ChevronUp size={14} />
      </button>
      <button type="button" className="icon" aria-label="Next match" disabled={!matches.length} onClick={() => go(at + 1)}>
        <ChevronDown size={14} />
      </button>
      <button type="button" className="icon" aria-label="Close find" onClick={() => setOpen(false)}>
        <X size={14} />
      </button>
    </div>
  );
}
