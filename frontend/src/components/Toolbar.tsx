// The top bar: file commands with the recent files, undo/redo, layout and
// view commands, the shortcuts sheet and Preferences, and the document
// title with its dirty marker.
import {
  CalendarClock,
  ChevronDown,
  FilePlus2,
  FolderOpen,
  Keyboard,
  LayoutDashboard,
  LayoutTemplate,
  Maximize,
  Monitor,
  Moon,
  PanelLeft,
  Redo2,
  Save,
  SaveAll,
  Settings,
  Sun,
  Undo2,
} from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { useStore } from '../store';
import type { Actions } from '../store/actions';
import { canvasBridge } from './canvasBridge';
import { nextThemePref, type ThemePref } from '../theme';
import { MOD } from './shortcuts';
import { PreferencesDialog } from './slots';

const THEME_LABEL: Record<ThemePref, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/** ThemeToggle cycles System → Light → Dark; the label says the pick and what shows. */
function ThemeToggle() {
  const pref = useStore((s) => s.themePref);
  const theme = useStore((s) => s.theme);
  const setPref = useStore((s) => s.setThemePref);
  const next = nextThemePref(pref);
  const Icon = pref === 'system' ? Monitor : pref === 'light' ? Sun : Moon;
  const now = pref === 'system' ? `System (${theme})` : THEME_LABEL[pref];
  return (
    <button
      type="button"
      className="icon-only"
      onClick={() => setPref(next)}
      title={`Theme: ${now}. Click for ${THEME_LABEL[next]}.`}
      aria-label={`Theme: ${now}`}
      data-testid="theme-toggle"
      data-theme-pref={pref}
    >
      <Icon size={16} />
    </button>
  );
}

function RecentMenu({ actions, disabled }: { actions: Actions; disabled: boolean }) {
  const recent = useStore((s) => s.recent);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    void actions.refreshRecent();
    const onDown = (e: MouseEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('mousedown', onDown);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('mousedown', onDown);
      window.removeEventListener('keydown', onKey);
    };
  }, [open, actions]);
  return (
    <div className="menu-anchor" ref={box}>
      <button
        type="button"
        className="split"
        aria-label="Recent files"
        title="Recent files"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={disabled}
        onClick={() => setOpen((o) => !o)}
        data-testid="recent-button"
      >
        <ChevronDown size={14} />
      </button>
      {open && (
        <div className="menu" role="menu" data-testid="recent-menu">
          <div className="menu-title">Recent files</div>
          {recent.length === 0 && <div className="menu-empty">No recent files yet.</div>}
          {recent.map((r) => (
            <button
              key={r.path}
              type="button"
              role="menuitem"
              className="menu-item"
              title={r.path}
              onClick={() => {
                setOpen(false);
                void actions.openRecent(r.path);
              }}
            >
              <span className="menu-item-name">{r.name}</span>
              <span className="menu-item-path">{r.path}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** sentenceCase lowers a history label's first letter for "Undo …", and
 * only that: "Add AI step" reads "Undo add AI step" (not "add ai step"). */
function sentenceCase(label: string): string {
  return label.charAt(0).toLowerCase() + label.slice(1);
}

export function Toolbar({ actions }: { actions: Actions }) {
  const fileName = useStore((s) => s.fileName);
  const path = useStore((s) => s.path);
  const dirty = useStore((s) => s.dirty);
  const busy = useStore((s) => s.busy);
  const hasDoc = useStore((s) => s.doc !== null);
  const wfName = useStore((s) => s.doc?.name ?? '');
  const canUndo = useStore((s) => s.past.length > 0);
  const canRedo = useStore((s) => s.future.length > 0);
  const undoLabel = useStore((s) => s.past[s.past.length - 1]?.label);
  const redoLabel = useStore((s) => s.future[s.future.length - 1]?.label);
  const undo = useStore((s) => s.undo);
  const redo = useStore((s) => s.redo);
  const paletteOpen = useStore((s) => s.paletteOpen);
  const setPaletteOpen = useStore((s) => s.setPaletteOpen);
  const setShortcutsOpen = useStore((s) => s.setShortcutsOpen);
  const setPreferencesOpen = useStore((s) => s.setPreferencesOpen);
  const setSchedulesOpen = useStore((s) => s.setSchedulesOpen);
  const setExamplesOpen = useStore((s) => s.setExamplesOpen);
  const previewing = useStore((s) => !!(s as { previewNodes?: unknown }).previewNodes);

  return (
    <header className="toolbar">
      <div className="brand" aria-label="Weft">
        <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">
          <rect x="2" y="2" width="20" height="20" rx="6" fill="#4f8cff" />
          <path d="M6 9h12M6 15h12M9 6v12M15 6v12" stroke="#0f1115" strokeWidth="2" strokeLinecap="round" />
        </svg>
        <span>Weft</span>
      </div>
      <nav className="toolbar-actions" aria-label="File">
        <button type="button" onClick={() => void actions.newDocument()} disabled={busy} title={`New workflow (${MOD}+N)`} data-testid="new-button">
          <FilePlus2 size={15} /> New
        </button>
        <button type="button" onClick={() => setExamplesOpen(true)} title="Start from an example workflow" data-testid="examples-button">
          <LayoutTemplate size={15} /> Examples
        </button>
        <div className="split-button">
          <button type="button" onClick={() => void actions.openDialog()} disabled={busy} title={`Open… (${MOD}+O)`}>
            <FolderOpen size={15} /> Open…
          </button>
          <RecentMenu actions={actions} disabled={busy} />
        </div>
        <button type="button" onClick={() => void actions.save()} disabled={busy || !hasDoc} title={`Save (${MOD}+S)`}>
          <Save size={15} /> Save
        </button>
        <button type="button" onClick={() => void actions.saveAs()} disabled={busy || !hasDoc} title={`Save As… (${MOD}+Shift+S)`}>
          <SaveAll size={15} /> Save As…
        </button>
      </nav>
      <span className="toolbar-sep" />
      <nav className="toolbar-actions" aria-label="Edit">
        <button
          type="button"
          className="icon-only"
          onClick={undo}
          disabled={!canUndo || previewing}
          title={`Undo${undoLabel ? ` ${sentenceCase(undoLabel)}` : ''} (${MOD}+Z)`}
          aria-label="Undo"
          data-testid="undo-button"
        >
          <Undo2 size={16} />
        </button>
        <button
          type="button"
          className="icon-only"
          onClick={redo}
          disabled={!canRedo || previewing}
          title={`Redo${redoLabel ? ` ${sentenceCase(redoLabel)}` : ''} (${MOD}+Shift+Z)`}
          aria-label="Redo"
          data-testid="redo-button"
        >
          <Redo2 size={16} />
        </button>
        <button
          type="button"
          className="icon-only"
          onClick={() => void actions.autoLayout()}
          disabled={!hasDoc || previewing}
          title="Auto-layout (Shift+L)"
          aria-label="Auto-layout"
          data-testid="layout-button"
        >
          <LayoutDashboard size={16} />
        </button>
        <button type="button" className="icon-only" onClick={() => canvasBridge.fitView()} disabled={!hasDoc} title="Fit to view (F)" aria-label="Fit to view">
          <Maximize size={16} />
        </button>
        <button
          type="button"
          className={`icon-only${paletteOpen ? ' on' : ''}`}
          onClick={() => setPaletteOpen(!paletteOpen)}
          title={paletteOpen ? 'Hide the palette' : 'Show the palette'}
          aria-label="Toggle the palette"
          aria-pressed={paletteOpen}
        >
          <PanelLeft size={16} />
        </button>
      </nav>
      <div className="doc-title" title={path || 'not saved to a file yet'} data-testid="doc-title">
        {hasDoc && (
          <>
            <span className="doc-file">{fileName}</span>
            {dirty && (
              <span className="dirty" data-testid="dirty-marker" title="Unsaved changes">
                ●
              </span>
            )}
            {wfName && <span className="doc-name">{wfName}</span>}
          </>
        )}
      </div>
      <nav className="toolbar-actions" aria-label="Help and settings">
        <ThemeToggle />
        <button type="button" className="icon-only" onClick={() => setSchedulesOpen(true)} title="Schedules: run workflows every day, hour…" aria-label="Schedules" data-testid="schedules-button">
          <CalendarClock size={16} />
        </button>
        <button type="button" className="icon-only" onClick={() => setShortcutsOpen(true)} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts" data-testid="shortcuts-button">
          <Keyboard size={16} />
        </button>
        {PreferencesDialog && (
          <button type="button" className="icon-only" onClick={() => setPreferencesOpen(true)} title={`Preferences (${MOD}+,)`} aria-label="Preferences" data-testid="preferences-button">
            <Settings size={16} />
          </button>
        )}
      </nav>
    </header>
  );
}
