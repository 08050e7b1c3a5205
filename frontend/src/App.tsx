import { useEffect } from 'react';
import { api } from './api';
import { Canvas } from './components/Canvas';
import { ProblemsPanel } from './components/ProblemsPanel';
import { StatusBar } from './components/StatusBar';
import { Toolbar } from './components/Toolbar';
import { useStore } from './store';
import { actions as defaultActions, type Actions } from './store/actions';

export default function App({ actions = defaultActions, autoload = true }: { actions?: Actions; autoload?: boolean }) {
  const fileName = useStore((s) => s.fileName);
  const dirty = useStore((s) => s.dirty);

  useEffect(() => {
    if (autoload) void actions.loadSample();
  }, [actions, autoload]);

  useEffect(() => {
    api.setWindowTitle(fileName ? `${dirty ? '● ' : ''}${fileName} — Weft` : 'Weft');
  }, [fileName, dirty]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey)) return;
      const k = e.key.toLowerCase();
      if (k === 'o') {
        e.preventDefault();
        void actions.openDialog();
      } else if (k === 's') {
        e.preventDefault();
        void (e.shiftKey ? actions.saveAs() : actions.save());
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [actions]);

  return (
    <div className="app">
      <Toolbar actions={actions} />
      <StatusBar />
      <main className="workspace">
        <Canvas />
        <ProblemsPanel />
      </main>
    </div>
  );
}
