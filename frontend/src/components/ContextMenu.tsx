// Right-click menus on the canvas: on a node (run from here, pin the last
// run's output or unpin, duplicate, enable/disable, add a node after it,
// delete), on an edge (insert a node on it, delete)
// and on empty canvas (add a node there). Keyboard: arrows move, Enter
// picks, Esc closes.
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { edgeKey, hasPin, setField, updateNode } from '../graph/edit';
import { runActions as defaultRunActions } from './run/actions';
import type { RunActions } from './run/runActions';
import { useStore } from '../store';
import { isEnabled } from '../types';

export interface MenuTarget {
  kind: 'node' | 'edge' | 'pane';
  /** node id, or edge key */
  id?: string;
  /** where the menu opens, in screen pixels */
  screen: { x: number; y: number };
  /** the same point on the canvas, for a node added there */
  flow: { x: number; y: number };
}

interface Item {
  label: string;
  id: string;
  run: () => void;
  danger?: boolean;
}

function openPalette() {
  const s = useStore.getState();
  if (!s.paletteOpen) s.setPaletteOpen(true);
  window.setTimeout(() => document.querySelector<HTMLInputElement>('[data-testid="palette-search"]')?.focus(), 0);
}

type MenuRunActions = Pick<RunActions, 'startFrom' | 'pinFromRun' | 'unpin'>;

const STEP_TYPES = ['Tool', 'AiStep', 'AiTransform', 'Workflow'];

function itemsFor(t: MenuTarget, run: MenuRunActions): Item[] {
  const s = useStore.getState();
  const doc = s.doc;
  if (!doc) return [];
  const at = { x: t.flow.x, y: t.flow.y - 46 };
  if (t.kind === 'node' && t.id) {
    const n = doc.nodes.find((x) => x.id === t.id);
    if (!n) return [];
    const id = n.id;
    const running = s.runPhase === 'running' || s.runPhase === 'starting' || s.runPhase === 'stopping';
    const runItems: Item[] = running
      ? []
      : [
          {
            id: 'run-from',
            label: 'Run from here',
            run: () => {
              s.setSidebarTab('run');
              void run.startFrom(id);
            },
          },
        ];
    if (STEP_TYPES.includes(n.type)) {
      runItems.push(
        hasPin(doc, id)
          ? { id: 'unpin', label: 'Unpin data', run: () => run.unpin(id) }
          : { id: 'pin', label: "Pin the last run's output", run: () => void run.pinFromRun(id) },
      );
    }
    return [
      ...runItems,
      {
        id: 'add-after',
        label: 'Add a node after this one…',
        run: () => {
          s.selectNodes([id]);
          openPalette();
        },
      },
      {
        id: 'duplicate',
        label: 'Duplicate',
        run: () => {
          s.selectNodes([id]);
          s.duplicateSelection();
        },
      },
      {
        id: 'toggle',
        label: isEnabled(n) ? 'Disable' : 'Enable',
        run: () => s.edit((w) => updateNode(w, id, (x) => setField(x, 'enabled', isEnabled(x) ? false : undefined)), { label: isEnabled(n) ? 'Disable' : 'Enable' }),
      },
      {
        id: 'delete',
        label: 'Delete',
        danger: true,
        run: () => {
          s.selectNodes([id]);
          s.deleteSelection();
        },
      },
    ];
  }
  if (t.kind === 'edge' && t.id) {
    const key = t.id;
    if (!doc.edges.some((e) => edgeKey(e) === key)) return [];
    return [
      {
        id: 'insert',
        label: 'Insert a node here…',
        run: () => {
          s.setPendingConnect({ edge: key, position: at });
          openPalette();
        },
      },
      {
        id: 'delete',
        label: 'Delete the edge',
        danger: true,
        run: () => s.edit((w) => ({ ...w, edges: w.edges.filter((e) => edgeKey(e) !== key) }), { label: 'Delete edge' }),
      },
    ];
  }
  return [
    {
      id: 'add-here',
      label: 'Add a node here…',
      run: () => {
        s.setPendingConnect({ position: at });
        openPalette();
      },
    },
  ];
}

export function ContextMenu({ target, onClose, run = defaultRunActions }: { target: MenuTarget | null; onClose: () => void; run?: MenuRunActions }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!target) return;
    box.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const away = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) onClose();
    };
    window.addEventListener('mousedown', away, true);
    return () => window.removeEventListener('mousedown', away, true);
  }, [target, onClose]);
  if (!target) return null;
  const items = itemsFor(target, run);
  if (!items.length) return null;
  const onKey = (e: KeyboardEvent) => {
    const all = [...(box.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const i = all.indexOf(document.activeElement as HTMLElement);
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      all[(i + (e.key === 'ArrowDown' ? 1 : all.length - 1)) % all.length]?.focus();
    }
  };
  return (
    <div
      className="context-menu"
      role="menu"
      aria-label={target.kind === 'node' ? 'Node' : target.kind === 'edge' ? 'Edge' : 'Canvas'}
      style={{ left: target.screen.x, top: target.screen.y }}
      ref={box}
      onKeyDown={onKey}
      data-testid="context-menu"
    >
      {items.map((it) => (
        <button
          key={it.id}
          type="button"
          role="menuitem"
          className={it.danger ? 'danger' : undefined}
          data-testid={`menu-${it.id}`}
          onClick={() => {
            onClose();
            it.run();
          }}
        >
          {it.label}
        </button>
      ))}
    </div>
  );
}
