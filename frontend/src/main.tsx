import '@fontsource-variable/inter';
import '@fontsource-variable/jetbrains-mono';
import '@xyflow/react/dist/style.css';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';
import { canvasBridge } from './components/canvasBridge';
import { api, errorMessage } from './api';
import { useStore } from './store';
import { actions } from './store/actions';
import { loadThemePref, resolveTheme } from './theme';

// Uncaught errors go to the app log, where the smoke test and users can see them.
window.addEventListener('error', (e) => api.log('error', `uncaught: ${e.message} at ${e.filename}:${e.lineno}`));
window.addEventListener('unhandledrejection', (e) => api.log('error', `unhandled rejection: ${errorMessage(e.reason)}`));

// Test hook for the e2e suite and the benchmarks: the same actions the UI
// uses (openPath, saveTo, …) and the store.
(window as unknown as { weft?: unknown }).weft = { actions, store: useStore, canvas: canvasBridge };

// The theme before the first paint (App keeps it up to date): no dark flash in a light theme.
document.documentElement.dataset.theme = resolveTheme(loadThemePref());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
