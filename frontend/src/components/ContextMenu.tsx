// Right-click menus on the canvas: on a node (run from here, pin the last
// run's output or unpin, duplicate, enable/disable, add a node after it,
// group the selection, delete), on an edge (insert a node on it, delete),
// on a note or group (delete) and on empty canvas (add a node or a sticky
// note there, paste, select all, group the selection, fit view,
// auto-layout). Keyboard: arrows move, Enter picks, Esc closes; Shift+F10
// or the context-menu key opens it on the focused canvas (Canvas.tsx).
import { useEffect, useRef, type KeyboardEvent } from 'react';
import { edgeKey, hasPin, setField, updateNode } from '../graph/edit';
import { annotationOf, removeAnnotations } from '../graph/annotations';
import { actions as appActions } from '../store/actions';
import { canvasBridge } from './canvasBridge';
import { runActions as defaultRunActions } from './run/actions';
import type { RunActions } from './run/runActions';
import { useStore } from '../store';
import { isEnabled } from '../types';

export interface MenuTarget {
  kind: 'node' | 'edge' | 'pane' | 'annotation';
  /** node id, edge key, or a note's or group's canvas id (note:ID, group:ID) */
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
  /** shown, but it cannot be picked now (Paste with nothing copied) */
  disabled?: boolean;
}

function openPalette() {
  const s = useStore.getState();
  if (!s.paletteOpen) s.setPaletteOpen(true);
  window.setTimeout(() => document.querySelector<HTMLInputElement>('[data-testid="palette-search"]')?.focus(), 0);
}

type MenuRunActions = Pick<RunActions, 'startFrom' | 'pinFromRun' | 'unpin'>;
/** What the pane menu does besides the store's edits (the toolbar's too). */
export interface PaneActions {
  autoLayout(): void;
  fitView(): void;
}
const defaultPane: PaneActions = { autoLayout: () => void appActions.autoLayout(), fitView: () => canvasBridge.fitView() };

/** groupItem frames the selected nodes in a group, when some are selected. */
function groupItem(): Item[] {
  const s = useStore.getState();
  if (s.previewNodes || !s.nodes.some((n) => n.selected)) return [];
  return [{ id: 'group', label: 'Group the selection', run: () => s.groupSelection() }];
}

const STEP_TYPES = ['Tool', 'AiStep', 'AiTransform', 'Workflow'];

function itemsFor(t: MenuTarget, run: MenuRunActions, pane: PaneActions): Item[] {
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
      ...groupItem(),
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
  if (t.kind === 'annotation' && t.id) {
    const a = annotationOf(t.id);
    if (!a || !s.annotations.some((x) => x.id === t.id)) return [];
    return [
      {
        id: 'delete',
        label: a.kind === 'note' ? 'Delete the note' : 'Delete the group (its nodes stay)',
        danger: true,
        run: () => s.edit((w) => removeAnnotations(w, a.kind === 'note' ? [a.id] : [], a.kind === 'group' ? [a.id] : []), { label: 'Delete' }),
      },
    ];
  }
  const previewing = !!s.previewNodes;
  return [
    ...(previewing
      ? []
      : [
          {
            id: 'add-here',
            label: 'Add a node here…',
            run: () => {
              s.setPendingConnect({ position: at });
              openPalette();
            },
          },
          { id: 'add-note', label: 'Add sticky note', run: () => void s.addNote({ x: t.flow.x, y: t.flow.y }) },
          { id: 'paste', label: 'Paste', disabled: !s.clipboard, run: () => void s.paste() },
        ]),
    { id: 'select-all', label: 'Select all', run: () => s.selectAll() },
    ...groupItem(),
    { id: 'fit', label: 'Fit view', run: () => pane.fitView() },
    ...(previewing || !doc.nodes.length ? [] : [{ id: 'layout', label: 'Auto-layout', run: () => pane.autoLayout() }]),
  ];
}

export function ContextMenu({
  target,
  onClose,
  run = defaultRunActions,
  pane = defaultPane,
}: {
  target: MenuTarget | null;
  onClose: () => void;
  run?: MenuRunActions;
  pane?: PaneActions;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!target) return;
    box.current?.querySelector<HTMLElement>('[role="menuitem"]:not(:disabled)')?.focus();
    const away = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) onClose();
    };
    window.addEventListener('mousedown', away, true);
    return () => window.removeEventListener('mousedown', away, true);
  }, [target, onClose]);
  if (!target) return null;
  const items = itemsFor(target, run, pane);
  if (!items.length) return null;
  const onKey = (e: KeyboardEvent) => {
    const all = [...(box.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not(:disabled)') ?? [])];
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
      aria-label={{ node: 'Node', edge: 'Edge', annotation: annotationOf(target.id ?? '')?.kind === 'group' ? 'Group' : 'Note', pane: 'Canvas' }[target.kind]}
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
          disabled={it.disabled}
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
