// Transient UI state: status and toasts, the modal dialog, which panels are
// open, the tool catalog and the recent files.
import { loadThemePref, saveThemePref, type Theme, type ThemePref } from '../theme';
import type { StateCreator } from 'zustand';
import type { RecentFile, ScheduleEntry, Tool } from '../types';
import type { StoreState } from './index';

/** How long an information status stays on screen. */
export const statusInfoMs = 5000;

export interface Status {
  kind: 'error' | 'info';
  text: string;
}

export interface Toast {
  id: number;
  kind: 'error' | 'info';
  text: string;
}

export interface DialogButton {
  id: string;
  label: string;
  /** primary: the default (Enter); danger: destructive */
  kind?: 'primary' | 'danger' | 'plain';
}

export interface DialogRequest {
  title: string;
  message: string;
  buttons: DialogButton[];
  /** the button Escape (or closing the dialog) chooses */
  cancelId: string;
}

interface OpenDialog extends DialogRequest {
  resolve(id: string): void;
}

export type SidebarTab = 'inspector' | 'assistant' | 'run' | 'tests';

/** A connection dropped on empty canvas: the next palette pick is added
 * there and connected from this handle. */
/** Where the palette's next node goes, and what it connects to: a
 * connection dropped on empty canvas (from an output, source; or into an
 * input, target), an edge to insert it on, or just a place ("Add node here"). */
export type PendingConnect =
  | { source: string; sourceHandle: string | null; position: { x: number; y: number } }
  | { target: string; position: { x: number; y: number } }
  | { edge: string; position: { x: number; y: number } }
  | { position: { x: number; y: number } };

export interface UiSlice {
  status: Status | null;
  busy: boolean;
  toasts: Toast[];
  dialog: OpenDialog | null;
  shortcutsOpen: boolean;
  preferencesOpen: boolean;
  schedulesOpen: boolean;
  /** The examples gallery (ExamplesDialog). */
  examplesOpen: boolean;
  /** a file just saved whose schedules run other content: offer to update them */
  scheduleUpdate: { path: string; schedules: ScheduleEntry[] } | null;
  paletteOpen: boolean;
  sidebarOpen: boolean;
  sidebarTab: SidebarTab;
  tools: Tool[];
  recent: RecentFile[];
  pendingConnect: PendingConnect | null;
  /** the canvas's find box (Ctrl+F) is open */
  findOpen: boolean;
  /** the theme picked (system follows the OS) and the one shown */
  themePref: ThemePref;
  theme: Theme;
  /** setThemePref picks a theme and remembers it on this machine (theme.ts). */
  setThemePref(p: ThemePref): void;
  setTheme(t: Theme): void;
  setFindOpen(open: boolean): void;
  /** settingsWarnings say which settings values could not be used (and
   * were replaced by defaults), or where an unreadable file went. */
  settingsWarnings: string[];
  setSettingsWarnings(w: string[]): void;
  /** no model is configured: the main screen says so (the assistant's
   * setup is only seen on its tab) */
  modelMissing: boolean;
  setModelMissing(missing: boolean): void;
  setPendingConnect(p: PendingConnect | null): void;
  setStatus(s: Status | null): void;
  setBusy(b: boolean): void;
  /** toast shows a short message that goes away by itself. */
  toast(text: string, kind?: Toast['kind']): void;
  dismissToast(id: number): void;
  /** ask shows a modal dialog and resolves with the chosen button's id. */
  ask(req: DialogRequest): Promise<string>;
  answerDialog(id: string): void;
  setShortcutsOpen(open: boolean): void;
  setPreferencesOpen(open: boolean): void;
  setSchedulesOpen(open: boolean): void;
  setExamplesOpen(open: boolean): void;
  setScheduleUpdate(u: { path: string; schedules: ScheduleEntry[] } | null): void;
  setPaletteOpen(open: boolean): void;
  setSidebarOpen(open: boolean): void;
  setSidebarTab(tab: SidebarTab): void;
  setTools(tools: Tool[]): void;
  setRecent(recent: RecentFile[]): void;
}

let toastSeq = 0;

export const createUiSlice: StateCreator<StoreState, [], [], UiSlice> = (set, get) => ({
  status: null,
  busy: false,
  toasts: [],
  dialog: null,
  shortcutsOpen: false,
  preferencesOpen: false,
  schedulesOpen: false,
  examplesOpen: false,
  scheduleUpdate: null,
  paletteOpen: true,
  sidebarOpen: true,
  sidebarTab: 'inspector',
  tools: [],
  recent: [],
  pendingConnect: null,
  findOpen: false,
  themePref: loadThemePref(),
  theme: 'dark',
  setThemePref(themePref) {
    saveThemePref(themePref);
    set({ themePref });
  },
  setTheme(theme) {
    set({ theme });
  },
  setFindOpen(findOpen) {
    set({ findOpen });
  },
  settingsWarnings: [],
  setSettingsWarnings(settingsWarnings) {
    set({ settingsWarnings });
  },
  modelMissing: false,
  setModelMissing(modelMissing) {
    set({ modelMissing });
  },
  setPendingConnect(pendingConnect) {
    set({ pendingConnect });
  },
  setStatus(status) {
    set({ status });
    // Information goes away by itself ("Preferences saved." used to stay and
    // push the layout down); errors stay until dismissed.
    if (status && status.kind !== 'error') {
      setTimeout(() => {
        if (get().status === status) set({ status: null });
      }, statusInfoMs);
    }
  },
  setBusy(busy) {
    set({ busy });
  },
  toast(text, kind = 'error') {
    const id = ++toastSeq;
    // The same message twice in a row shows once.
    set((s) => ({ toasts: [...s.toasts.filter((t) => t.text !== text), { id, kind, text }].slice(-4) }));
  },
  dismissToast(id) {
    set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
  },
  ask(req) {
    // A dialog already open is answered with its cancel button first.
    get().dialog?.resolve(get().dialog!.cancelId);
    return new Promise<string>((resolve) => {
      set({
        dialog: {
          ...req,
          resolve: (id: string) => {
            set({ dialog: null });
            resolve(id);
          },
        },
      });
    });
  },
  answerDialog(id) {
    get().dialog?.resolve(id);
  },
  setShortcutsOpen(shortcutsOpen) {
    set({ shortcutsOpen });
  },
  setSchedulesOpen(schedulesOpen) {
    set({ schedulesOpen });
  },
  setExamplesOpen(examplesOpen) {
    set({ examplesOpen });
  },
  setScheduleUpdate(scheduleUpdate) {
    set({ scheduleUpdate });
  },
  setPreferencesOpen(preferencesOpen) {
    set({ preferencesOpen });
  },
  setPaletteOpen(paletteOpen) {
    set({ paletteOpen });
  },
  setSidebarOpen(sidebarOpen) {
    set({ sidebarOpen });
  },
  setSidebarTab(sidebarTab) {
    set({ sidebarTab, sidebarOpen: true });
  },
  setTools(tools) {
    set({ tools });
  },
  setRecent(recent) {
    set({ recent });
  },
});
