// The top bar: file commands and the document title with its dirty marker.
import { FolderOpen, Save, SaveAll } from 'lucide-react';
import { useStore } from '../store';
import type { Actions } from '../store/actions';

export function Toolbar({ actions }: { actions: Actions }) {
  const fileName = useStore((s) => s.fileName);
  const path = useStore((s) => s.path);
  const dirty = useStore((s) => s.dirty);
  const busy = useStore((s) => s.busy);
  const hasDoc = useStore((s) => s.doc !== null);
  const wfName = useStore((s) => s.doc?.name ?? '');

  return (
    <header className="toolbar">
      <div className="brand" aria-label="Weft">
        <svg width="20" height="20" viewBox="0 0 24 24" aria-hidden="true">
          <rect x="2" y="2" width="20" height="20" rx="6" fill="#4f8cff" />
          <path d="M6 9h12M6 15h12M9 6v12M15 6v12" stroke="#0f1115" strokeWidth="2" strokeLinecap="round" />
        </svg>
        <span>Weft</span>
      </div>
      <nav className="toolbar-actions">
        <button type="button" onClick={() => void actions.openDialog()} disabled={busy} title="Open… (Ctrl+O)">
          <FolderOpen size={15} /> Open…
        </button>
        <button type="button" onClick={() => void actions.save()} disabled={busy || !hasDoc} title="Save (Ctrl+S)">
          <Save size={15} /> Save
        </button>
        <button
          type="button"
          onClick={() => void actions.saveAs()}
          disabled={busy || !hasDoc}
          title="Save As… (Ctrl+Shift+S)"
        >
          <SaveAll size={15} /> Save As…
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
    </header>
  );
}
