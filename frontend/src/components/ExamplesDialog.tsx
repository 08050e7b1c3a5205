// The examples gallery: a few useful workflows (backend/examples), each
// opened as a new unsaved workflow. Nothing the person had is lost:
// opening one asks first about unsaved changes, as New does.
import { LayoutTemplate } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import type { Actions } from '../store/actions';
import type { Example } from '../types';
import { Modal } from './Overlays';

type State = { loading: true } | { loading: false; list: Example[]; error?: string };

export function ExamplesDialog({ actions, onClose }: { actions: Pick<Actions, 'openExample'>; onClose: () => void }) {
  const [state, setState] = useState<State>({ loading: true });
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    let live = true;
    api
      .examples()
      .then((list) => live && setState({ loading: false, list }))
      .catch((e: unknown) => live && setState({ loading: false, list: [], error: errorMessage(e) }));
    return () => {
      live = false;
    };
  }, []);
  // The list arrives after the dialog took focus (its Close button): the
  // first example is what a keyboard user wants next.
  useEffect(() => {
    if (!state.loading) first.current?.focus();
  }, [state.loading]);
  const pick = (file: string) => {
    onClose(); // first, so the focus is back at the opener if New's question follows
    void actions.openExample(file);
  };
  return (
    <Modal
      title={
        <>
          <LayoutTemplate size={16} aria-hidden="true" /> Start from an example
        </>
      }
      onClose={onClose}
      wide
      testId="examples-dialog"
    >
      <p className="modal-message">Each opens as a new workflow, not saved yet: read its steps; Run asks for what it needs (the folder, the page).</p>
      {state.loading ? (
        <p className="modal-message muted">Loading the examples…</p>
      ) : state.error ? (
        <p className="modal-message error" role="alert" data-testid="examples-error">
          The examples could not be listed: {state.error}
        </p>
      ) : (
        <ul className="examples-list" aria-label="Examples">
          {state.list.map((ex, i) => (
            <li key={ex.file}>
              <button type="button" className="example-item" ref={i === 0 ? first : undefined} onClick={() => pick(ex.file)} data-testid={`example-${ex.file}`}>
                <span className="example-name">{ex.name}</span>
                <span className="example-goal">{ex.goal}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
