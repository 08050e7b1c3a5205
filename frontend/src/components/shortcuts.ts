// The editor's keyboard shortcuts: the list the shortcuts sheet shows and
// the handler that implements them.
import { useEffect } from 'react';
import { useStore } from '../store';
import type { Actions } from '../store/actions';
import { canvasBridge } from './canvasBridge';
import { PreferencesDialog } from './slots';

export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const MOD = isMac ? '⌘' : 'Ctrl';

export interface ShortcutGroup {
  title: string;
  items: { keys: string[][]; what: string }[];
}

export const SHORTCUTS: ShortcutGroup[] = [
  {
    title: 'File',
    items: [
      { keys: [[MOD, 'N']], what: 'New workflow' },
      { keys: [[MOD, 'O']], what: 'Open…' },
      { keys: [[MOD, 'S']], what: 'Save' },
      { keys: [[MOD, 'Shift', 'S']], what: 'Save as…' },
      ...(PreferencesDialog ? [{ keys: [[MOD, ',']], what: 'Preferences' }] : []),
    ],
  },
  {
    title: 'Edit',
    items: [
      { keys: [[MOD, 'Z']], what: 'Undo' },
      { keys: [[MOD, 'Shift', 'Z'], [MOD, 'Y']], what: 'Redo' },
      { keys: [[MOD, 'C']], what: 'Copy selected nodes' },
      { keys: [[MOD, 'X']], what: 'Cut selected nodes' },
      { keys: [[MOD, 'V']], what: 'Paste' },
      { keys: [[MOD, 'D']], what: 'Duplicate selected nodes' },
      { keys: [['Delete'], ['Backspace']], what: 'Delete selected nodes and edges' },
    ],
  },
  {
    title: 'Canvas',
    items: [
      { keys: [['Click']], what: 'Select a node or edge' },
      { keys: [['Shift', 'Click']], what: 'Add to or remove from the selection' },
      { keys: [['Shift', 'Drag']], what: 'Select with a box' },
      { keys: [[MOD, 'A']], what: 'Select all nodes' },
      { keys: [['Esc']], what: 'Clear the selection' },
      { keys: [['Drag']], what: 'Pan (on empty canvas) or move nodes' },
      { keys: [['Scroll']], what: 'Zoom' },
      { keys: [['F']], what: 'Fit the workflow into view' },
      { keys: [['Shift', 'L']], what: 'Auto-layout' },
      { keys: [['Shift', 'F10'], ['Menu']], what: "The focused canvas's or node's menu (paste, select all, add a sticky note, group…)" },
      { keys: [['/']], what: 'Search the palette' },
      { keys: [[MOD, 'F']], what: 'Find a node by name or key' },
      { keys: [['?']], what: 'This sheet' },
    ],
  },
];

/** isEditable: typing in this element must not trigger canvas shortcuts. */
export function isEditable(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT';
}

/** handleShortcut runs the shortcut for e; true when it did something. */
export function handleShortcut(e: KeyboardEvent, actions: Actions): boolean {
  const s = useStore.getState();
  if (s.dialog || s.shortcutsOpen || s.preferencesOpen) return false; // modals handle their own keys
  const mod = e.ctrlKey || e.metaKey;
  const k = e.key.toLowerCase();
  const inField = isEditable(e.target);
  // Undo in the inspector's fields is the document's undo: field edits are
  // in the history. Elsewhere (search, chat) text fields keep their own.
  const inInspector = inField && !!(e.target as HTMLElement).closest?.('.inspector');
  const previewing = !!(s as { previewNodes?: unknown }).previewNodes;
  const blocked = () => {
    s.toast('Apply or discard the proposed change first.', 'info');
    return true;
  };

  if (mod && !e.altKey) {
    switch (k) {
      case 's':
        void (e.shiftKey ? actions.saveAs() : actions.save());
        return true;
      case 'o':
        void actions.openDialog();
        return true;
      case 'n':
        void actions.newDocument();
        return true;
      case ',':
        if (!PreferencesDialog) return false;
        s.setPreferencesOpen(true);
        return true;
      case 'f':
        if (!s.doc) return false;
        s.setFindOpen(true);
        return true;
      case 'z':
        if (inField && !inInspector) return false;
        if (previewing) return blocked();
        if (e.shiftKey) s.redo();
        else s.undo();
        return true;
      case 'y':
        if (inField && !inInspector) return false;
        if (previewing) return blocked();
        s.redo();
        return true;
    }
  }
  if (inField) return false;
  if (mod && !e.altKey) {
    switch (k) {
      case 'c': {
        const n = s.copySelection();
        // Notes and groups are copied too: "items" then, as they are no nodes.
        const clip = useStore.getState().clipboard;
        const what = clip?.notes?.length || clip?.groups?.length ? 'item' : 'node';
        if (n) s.toast(`Copied ${n} ${what}${n === 1 ? '' : 's'}`, 'info');
        return true;
      }
      case 'x':
        if (previewing) return blocked();
        if (s.copySelection()) s.deleteSelection();
        return true;
      case 'v':
        if (previewing) return blocked();
        s.paste();
        return true;
      case 'd':
        if (previewing) return blocked();
        s.duplicateSelection();
        return true;
      case 'a':
        s.selectAll();
        return true;
    }
    return false;
  }
  if (e.altKey || mod) return false;
  if (e.key === 'Delete' || e.key === 'Backspace') {
    if (previewing) return blocked();
    s.deleteSelection();
    return true;
  }
  if (e.key === '?') {
    s.setShortcutsOpen(true);
    return true;
  }
  if (e.key === 'Escape') {
    s.clearSelection();
    s.setPendingConnect(null);
    return true;
  }
  if (e.key === '/') {
    document.querySelector<HTMLInputElement>('[data-testid="palette-search"]')?.focus();
    if (!s.paletteOpen) s.setPaletteOpen(true);
    return true;
  }
  if (k === 'f' && !e.shiftKey) {
    canvasBridge.fitView();
    return true;
  }
  if (k === 'l' && e.shiftKey) {
    if (previewing) return blocked();
    void actions.autoLayout();
    return true;
  }
  return false;
}

/** useShortcuts installs the handler on the window. */
export function useShortcuts(actions: Actions) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.isComposing) return;
      if (handleShortcut(e, actions)) e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions]);
}
