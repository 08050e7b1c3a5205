// References in the inspector's text fields (n8n's expression picker):
// typing {{ (or Ctrl+Space) offers what the node may read at that place
// (the declared inputs, the outputs of the steps that run before it), and
// an output field dragged from the run data drops in as a reference. Go
// says what is visible (api.referencesAt, the rules validation reports
// unknown references by); nothing here walks the graph.
import { createContext, useContext, useId, useLayoutEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent, type ReactNode } from 'react';
import { api, errorMessage } from '../../api';
import { useStore } from '../../store';
import type { Reference, RefPlace } from '../../types';

/** How a field writes a reference: a template ({{ key.field }} in text)
 * or an expression (key.field in a condition). */
export type RefMode = 'template' | 'expression';

/** The drag payload of an output field (RunData): key.field. text/plain
 * carries {{key.field}} for anything else it is dropped on. */
export const REF_MIME = 'application/x-weft-reference';

interface Scope {
  nodeId: string;
  place: RefPlace;
}

const ScopeContext = createContext<Scope | null>(null);

/** RefScope says which node (and which of its texts) the fields inside
 * belong to; nodeId defaults to the enclosing scope's, and '' is the
 * workflow itself (its done_when). */
export function RefScope({ nodeId, place = '', children }: { nodeId?: string; place?: RefPlace; children: ReactNode }) {
  const outer = useContext(ScopeContext);
  const id = nodeId ?? outer?.nodeId;
  const value = useMemo(() => (id !== undefined ? { nodeId: id, place } : null), [id, place]);
  return <ScopeContext.Provider value={value}>{children}</ScopeContext.Provider>;
}

/** refName is what a reference reads: key.field, or key. for a step whose
 * outputs are not known. */
export function refName(r: Reference): string {
  return r.field ? `${r.key}.${r.field}` : `${r.key}.`;
}

/** refText is a reference as a field of that mode writes it. */
export function refText(name: string, mode: RefMode, spaced = true): string {
  if (mode === 'expression' || name.endsWith('.')) return mode === 'template' ? `{{ ${name}` : name;
  return spaced ? `{{ ${name} }}` : `{{${name}}}`;
}

/** openBrace finds the {{ the caret is typing a reference after: where it
 * starts and what was typed since; null when the caret is not in one. */
export function openBrace(text: string, caret: number): { from: number; query: string } | null {
  const before = text.slice(0, caret);
  const at = before.lastIndexOf('{{');
  if (at < 0) return null;
  const typed = before.slice(at + 2);
  if (!/^\s*[A-Za-z0-9_.]*$/.test(typed)) return null;
  return { from: at, query: typed.trim().toLowerCase() };
}

function matches(r: Reference, query: string): boolean {
  return !query || refName(r).toLowerCase().includes(query) || r.label.toLowerCase().includes(query);
}

/** The most options the list shows (a large workflow has hundreds). */
const MAX_SHOWN = 50;

type Editable = HTMLInputElement | HTMLTextAreaElement;

interface Open {
  /** the text replaced on insert: from the {{ (or the caret) to the caret */
  from: number;
  query: string;
  /** opened by Ctrl+Space, not after a {{ */
  bare: boolean;
}

/** useReferenceAssist wires a text field (mode undefined: none) for the
 * completion and for drops. setText is the field's own edit (it commits). */
export function useReferenceAssist(mode: RefMode | undefined, text: string, setText: (t: string) => void) {
  const scope = useContext(ScopeContext);
  const el = useRef<Editable | null>(null);
  const listId = useId();
  const [open, setOpen] = useState<Open | null>(null);
  const [refs, setRefs] = useState<Reference[] | null>(null);
  const [error, setError] = useState('');
  const [active, setActive] = useState(0);
  const caretAfter = useRef<number | null>(null);
  const asked = useRef(0);

  // A reference put in moves the caret after it once the new text is drawn.
  useLayoutEffect(() => {
    const at = caretAfter.current;
    if (at === null || !el.current) return;
    caretAfter.current = null;
    el.current.setSelectionRange(at, at);
  }, [text]);

  const shown = useMemo(() => (open && refs ? refs.filter((r) => matches(r, open.query)).slice(0, MAX_SHOWN) : []), [open, refs]);

  if (!mode) return { inputProps: {}, popup: null, onInput: () => {} };

  const load = () => {
    const doc = useStore.getState().doc;
    if (!scope || !doc) return;
    const n = ++asked.current;
    setRefs(null);
    setError('');
    api.referencesAt(doc, scope.nodeId, scope.place).then(
      (r) => n === asked.current && setRefs(r),
      (e) => n === asked.current && setError(errorMessage(e)),
    );
  };

  const openAt = (next: Open | null) => {
    if (next && !open) load();
    if (next?.query !== open?.query || !next) setActive(0);
    setOpen(next);
  };

  /** follow opens, narrows or closes the list as the caret moves in the text. */
  const follow = (t: Editable) => {
    if (!scope) return;
    const caret = t.selectionStart ?? t.value.length;
    const b = openBrace(t.value, caret);
    if (b) openAt({ from: b.from, query: b.query, bare: false });
    else if (open && !(open.bare && caret === open.from)) openAt(null);
  };

  /** put replaces text[from, to) with s and moves the caret after it. */
  const put = (from: number, to: number, s: string) => {
    caretAfter.current = from + s.length;
    setText(text.slice(0, from) + s + text.slice(to));
  };

  const insert = (r: Reference) => {
    if (!open) return;
    let to = el.current?.selectionStart ?? text.length;
    const name = refName(r);
    if (!open.bare) {
      // {{ and what was typed after it become the reference; a }} already
      // there is the reference's own.
      const close = /^\s*\}\}/.exec(text.slice(to));
      if (mode === 'template' && close && r.field) to += close[0].length;
    }
    put(open.from, Math.max(to, open.from), refText(name, mode));
    setOpen(null);
  };

  const onKeyDown = (e: KeyboardEvent<Editable>) => {
    if (!open) {
      if (e.ctrlKey && e.key === ' ' && scope) {
        e.preventDefault();
        const caret = e.currentTarget.selectionStart ?? text.length;
        openAt({ from: caret, query: '', bare: true });
      }
      return;
    }
    switch (e.key) {
      case 'ArrowDown':
      case 'ArrowUp':
        if (!shown.length) return;
        e.preventDefault();
        setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : shown.length - 1)) % shown.length);
        break;
      case 'Enter':
      case 'Tab':
        if (!shown.length) return;
        e.preventDefault();
        insert(shown[Math.min(active, shown.length - 1)]);
        break;
      case 'Escape':
        e.preventDefault();
        e.stopPropagation();
        setOpen(null);
        break;
    }
  };

  const onDragOver = (e: DragEvent<Editable>) => {
    if (!e.dataTransfer.types.includes(REF_MIME)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
  };

  // A dropped output goes in at the caret of the field being edited, else
  // at its end.
  const onDrop = (e: DragEvent<Editable>) => {
    const name = e.dataTransfer.getData(REF_MIME);
    if (!name) return;
    e.preventDefault();
    const t = e.currentTarget;
    const focused = document.activeElement === t;
    const from = focused ? (t.selectionStart ?? text.length) : text.length;
    const to = focused ? (t.selectionEnd ?? from) : from;
    put(from, to, refText(name, mode, false));
    t.focus();
  };

  const listed = open !== null && shown.length > 0;
  const inputProps = {
    ref: el,
    onKeyDown,
    onDragOver,
    onDrop,
    onSelect: (e: { currentTarget: Editable }) => follow(e.currentTarget),
    onBlurCapture: () => setOpen(null),
    'aria-autocomplete': scope ? ('list' as const) : undefined,
    'aria-controls': listed ? listId : undefined,
    'aria-activedescendant': listed ? `${listId}-${Math.min(active, shown.length - 1)}` : undefined,
    /** for an <input>, which can be a combobox (a <textarea> cannot) */
    expanded: listed,
  };
  const popup = open && (
    <div className="ref-popup" data-testid="ref-popup">
      {error ? (
        <div className="ref-note" role="alert">
          Could not list the references: {error}
        </div>
      ) : refs === null ? (
        <div className="ref-note">Listing the references…</div>
      ) : shown.length === 0 ? (
        <div className="ref-note" role="status">
          {open.query ? `No reference here matches “${open.query}”.` : 'Nothing runs before this step, and the workflow declares no inputs.'}
        </div>
      ) : (
        <ul role="listbox" id={listId} aria-label="References this step can read">
          {shown.map((r, i) => (
            <li
              key={`${r.key}.${r.field}`}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === Math.min(active, shown.length - 1)}
              className={i === Math.min(active, shown.length - 1) ? 'active' : undefined}
              onMouseDown={(e) => e.preventDefault()}
              onClick={() => insert(r)}
            >
              <code>{refName(r)}</code>
              <span className="ref-detail">
                {r.label}
                {r.type ? ` · ${r.type}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
  return { inputProps, popup, onInput: follow };
}
