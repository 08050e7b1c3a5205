// The open document's file trust, as Go judges it (service.FileTrust): a
// file whose bytes Weft did not write for the person and the person did not
// review (cloned, downloaded, edited in another editor) is not trusted, and
// everything in it that acts or decides where the run goes is reviewed
// before it runs. The editor shows a banner while it is not trusted; the
// approval dialog says why. Go decides; this only holds its answer.
import type { StateCreator } from 'zustand';
import type { FileTrust } from '../types';
import type { AppStore, StoreState } from './index';

export interface TrustSlice {
  /** the trust of the file the document was opened from or saved to; null: nothing to say (new, unsaved) */
  fileTrust: FileTrust | null;
  /** the document path fileTrust is for (an answer for another path is dropped) */
  fileTrustFor: string;
  setFileTrust(path: string, t: FileTrust | null): void;
}

export const createTrustSlice: StateCreator<StoreState, [], [], TrustSlice> = (set) => ({
  fileTrust: null,
  fileTrustFor: '',
  setFileTrust(path, t) {
    set({ fileTrust: t, fileTrustFor: path });
  },
});

/** untrustedFile is the open document's file trust when it is not trusted. */
export function untrustedFile(s: Pick<StoreState, 'fileTrust' | 'fileTrustFor' | 'path'>): FileTrust | null {
  const t = s.fileTrust;
  return t && !t.trusted && s.fileTrustFor === s.path && s.path !== '' ? t : null;
}

/**
 * refreshFileTrust asks Go for the trust of the document's file again (after
 * an open, a save, an approval, or when the window comes back: the file may
 * have changed on disk). An unsaved document has nothing to say. An answer
 * that comes back after the document moved to another path is dropped.
 */
export async function refreshFileTrust(store: AppStore, get: ((path: string) => Promise<FileTrust>) | undefined): Promise<void> {
  const path = store.getState().path;
  if (!path || typeof get !== 'function') {
    store.getState().setFileTrust(path, null);
    return;
  }
  try {
    const t = await get(path);
    if (store.getState().path === path) store.getState().setFileTrust(path, t);
  } catch (e) {
    // Not known: say so as not trusted (Go reviews it whole when it runs).
    const why = `its trust could not be read: ${e instanceof Error ? e.message : String(e)}`;
    if (store.getState().path === path) store.getState().setFileTrust(path, { path, trusted: false, why, changed: false });
  }
}
