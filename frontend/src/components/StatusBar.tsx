// Messages from the last operation and warnings from opening a file.
import { X } from 'lucide-react';
import { useStore } from '../store';

export function StatusBar() {
  const status = useStore((s) => s.status);
  const setStatus = useStore((s) => s.setStatus);
  const warnings = useStore((s) => s.openWarnings);
  const dismiss = useStore((s) => s.dismissWarnings);
  const settingsWarnings = useStore((s) => s.settingsWarnings);
  const setSettingsWarnings = useStore((s) => s.setSettingsWarnings);
  const setPreferencesOpen = useStore((s) => s.setPreferencesOpen);
  const noModel = useStore((s) => s.modelMissing);
  const setModelMissing = useStore((s) => s.setModelMissing);
  const setSidebarTab = useStore((s) => s.setSidebarTab);
  if (!status && !warnings.length && !settingsWarnings.length && !noModel) return null;
  return (
    <div className="banners">
      {status && (
        <div className={`banner ${status.kind}`} role={status.kind === 'error' ? 'alert' : 'status'} data-testid="status">
          <span>{status.text}</span>
          <button type="button" className="icon" aria-label="Dismiss" onClick={() => setStatus(null)}>
            <X size={14} />
          </button>
        </div>
      )}
      {settingsWarnings.length > 0 && (
        <div className="banner warning" role="status" data-testid="settings-banner">
          <span>
            Some settings could not be used and their defaults apply: {settingsWarnings.join('; ')}{' '}
            <button type="button" className="link" onClick={() => setPreferencesOpen(true)}>
              Open Preferences
            </button>
          </span>
          <button type="button" className="icon" aria-label="Dismiss" onClick={() => setSettingsWarnings([])}>
            <X size={14} />
          </button>
        </div>
      )}
      {noModel && (
        <div className="banner info" role="status" data-testid="no-model-banner">
          <span>
            No model is configured: the assistant cannot plan or change workflows, and AI steps cannot run.{' '}
            <button type="button" className="link" onClick={() => setSidebarTab('assistant')}>
              Set up a model
            </button>
          </span>
          <button type="button" className="icon" aria-label="Dismiss" onClick={() => setModelMissing(false)}>
            <X size={14} />
          </button>
        </div>
      )}
      {warnings.length > 0 && (
        <div className="banner warning" role="status" data-testid="open-warnings">
          <span>
            Opened with {warnings.length} note{warnings.length === 1 ? '' : 's'}: {warnings.join('; ')}
          </span>
          <button type="button" className="icon" aria-label="Dismiss" onClick={dismiss}>
            <X size={14} />
          </button>
        </div>
      )}
    </div>
  );
}
