import '@fontsource-variable/inter';
import '@fontsource-variable/jetbrains-mono';
import '@xyflow/react/dist/style.css';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import App from './App';
import { api, errorMessage } from './api';
import { actions } from './store/actions';

// Uncaught errors go to the app log, where the smoke test and users can see them.
window.addEventListener('error', (e) => api.log('error', `uncaught: ${e.message} at ${e.filename}:${e.lineno}`));
window.addEventListener('unhandledrejection', (e) => api.log('error', `unhandled rejection: ${errorMessage(e.reason)}`));

// Test hook for the e2e suite: open a file through the same path the UI uses.
(window as unknown as { weft?: unknown }).weft = { actions };

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
