// What floats above the editor: the modal dialog (unsaved changes, restore
// an autosave), the keyboard shortcuts sheet and the toasts.
import { Keyboard, X } from 'lucide-react';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { useStore } from '../store';
import type { Toast } from '../store/uiSlice';
import { SHORTCUTS } from './shortcuts';
import { useFocusTrap } from './focusTrap';

export function Modal({
  title,
  onClose,
  children,
  wide,
  testId,
}: {
  title: ReactNode;
  onClose: () => void;
  children: ReactNode;
  wide?: boolean;
  testId?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const titleId = useId();
  useFocusTrap(box);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        onClose();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [onClose]);
  useEffect(() => {
    const prev = document.activeElement as HTMLElement | null;
    const first = box.current?.querySelector<HTMLElement>('[data-autofocus]') ?? box.current?.querySelector<HTMLElement>('button');
    first?.focus();
    return () => prev?.focus?.();
  }, []);
  return (
    <div className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={`modal${wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-labelledby={titleId} ref={box} data-testid={testId}>
        <header className="modal-head">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon" aria-label="Close" onClick={onClose}>
            <X size={15} />
          </button>
        </header>
        {children}
      </div>
    </div>
  );
}

export function DialogHost() {
  const dialog = useStore((s) => s.dialog);
  const answer = useStore((s) => s.answerDialog);
  if (!dialog) return null;
  return (
    <Modal title={dialog.title} onClose={() => answer(dialog.cancelId)} testId="dialog">
      <p className="modal-message">{dialog.message}</p>
      <footer className="modal-buttons">
        {dialog.buttons.map((b) => (
          <button
            key={b.id}
            type="button"
            className={`btn ${b.kind ?? 'plain'}`}
            data-autofocus={b.kind === 'primary' ? true : undefined}
            data-testid={`dialog-${b.id}`}
            onClick={() => answer(b.id)}
          >
            {b.label}
          </button>
        ))}
      </footer>
    </Modal>
  );
}

export function ShortcutsSheet() {
  const open = useStore((s) => s.shortcutsOpen);
  const setOpen = useStore((s) => s.setShortcutsOpen);
  if (!open) return null;
  return (
    <Modal
      title={
        <>
          <Keyboard size={16} /> Keyboard shortcuts
        </>
      }
      onClose={() => setOpen(false)}
      wide
      testId="shortcuts-sheet"
    >
      <div className="shortcuts">
        {SHORTCUTS.map((g) => (
          <section key={g.title}>
            <h3>{g.title}</h3>
            <dl>
              {g.items.map((it) => (
                <div key={it.what} className="shortcut">
                  <dt>
                    {it.keys.map((combo, i) => (
                      <span key={i} className="combo">
                        {i > 0 && <span className="or">or</span>}
                        {combo.map((k) => (
                          <kbd key={k}>{k}</kbd>
                        ))}
                      </span>
                    ))}
                  </dt>
                  <dd>{it.what}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
      </div>
    </Modal>
  );
}

function ToastItem({ t }: { t: Toast }) {
  const dismiss = useStore((s) => s.dismissToast);
  useEffect(() => {
    const h = setTimeout(() => dismiss(t.id), t.kind === 'error' ? 5000 : 2500);
    return () => clearTimeout(h);
  }, [t, dismiss]);
  return (
    <div className={`toast ${t.kind}`} role={t.kind === 'error' ? 'alert' : 'status'} data-testid="toast" data-kind={t.kind}>
      <span>{t.text}</span>
      <button type="button" className="icon" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
        <X size={13} />
      </button>
    </div>
  );
}

export function Toasts() {
  const toasts = useStore((s) => s.toasts);
  if (!toasts.length) return null;
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <ToastItem key={t.id} t={t} />
      ))}
    </div>
  );
}
