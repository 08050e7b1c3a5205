import { useEffect } from 'react';
import { api } from './api';
import { Canvas } from './components/Canvas';
import { ExamplesDialog } from './components/ExamplesDialog';
import { DialogHost, ShortcutsSheet, Toasts } from './components/Overlays';
import { Palette } from './components/Palette';
import { ProblemsPanel } from './components/ProblemsPanel';
import { useShortcuts } from './components/shortcuts';
import { Sidebar } from './components/Sidebar';
import { SchedulesDialog } from './components/schedules/SchedulesDialog';
import { ScheduleUpdatePrompt } from './components/schedules/ScheduleUpdatePrompt';
import { SecretsNeededDialog } from './components/SecretsNeededDialog';
import { PreferencesDialog } from './components/slots';
import { StatusBar } from './components/StatusBar';
import { Toolbar } from './components/Toolbar';
import { TrustBanner } from './components/TrustBanner';
import { useStore } from './store';
import { actions as defaultActions, type Actions } from './store/actions';
import { watchTheme } from './theme';

function Preferences({ actions }: { actions: Actions }) {
  const open = useStore((s) => s.preferencesOpen);
  const setOpen = useStore((s) => s.setPreferencesOpen);
  if (!open || !PreferencesDialog) return null;
  return (
    <PreferencesDialog
      onClose={() => {
        setOpen(false);
        // MCP servers may have changed: list their tools again.
        void actions.loadCatalog();
      }}
    />
  );
}

function Schedules() {
  const open = useStore((s) => s.schedulesOpen);
  const setOpen = useStore((s) => s.setSchedulesOpen);
  if (!open) return null;
  return <SchedulesDialog onClose={() => setOpen(false)} />;
}

function Examples({ actions }: { actions: Actions }) {
  const open = useStore((s) => s.examplesOpen);
  const setOpen = useStore((s) => s.setExamplesOpen);
  if (!open) return null;
  return <ExamplesDialog actions={actions} onClose={() => setOpen(false)} />;
}

export default function App({ actions = defaultActions, autoload = true }: { actions?: Actions; autoload?: boolean }) {
  const fileName = useStore((s) => s.fileName);
  const dirty = useStore((s) => s.dirty);
  const paletteOpen = useStore((s) => s.paletteOpen);

  const themePref = useStore((s) => s.themePref);
  const setTheme = useStore((s) => s.setTheme);

  useEffect(() => actions.watch(), [actions]);

  // The theme picked, or the OS's while it follows the OS.
  useEffect(() => watchTheme(themePref, setTheme), [themePref, setTheme]);

  useEffect(() => {
    if (autoload) void actions.startup();
  }, [actions, autoload]);

  useEffect(() => {
    api.setWindowTitle(fileName ? `${dirty ? '● ' : ''}${fileName} — Weft` : 'Weft');
  }, [fileName, dirty]);

  useShortcuts(actions);

  return (
    <div className="app">
      <Toolbar actions={actions} />
      <StatusBar />
      <main className="workspace">
        {paletteOpen && <Palette />}
        <div className="center">
          <TrustBanner />
          <Canvas />
          <ProblemsPanel />
        </div>
        <Sidebar />
      </main>
      <DialogHost />
      <ShortcutsSheet />
      <Preferences actions={actions} />
      <Schedules />
      <Examples actions={actions} />
      <ScheduleUpdatePrompt />
      <SecretsNeededDialog onSaved={() => void actions.validate()} />
      <Toasts />
    </div>
  );
}
