// The secrets the open document refers to that this computer lacks (a
// workflow written elsewhere): Go finds them and suggests where each may
// go (service.SecretNeeds); the editor asks for them in a dialog when the
// workflow opens and when a run was refused for want of them, and the Run
// panel says which are still missing. Values never pass through here.
import type { StateCreator } from 'zustand';
import type { NeededSecret, Workflow } from '../types';
import type { AppStore, StoreState } from './index';

export interface SecretsSlice {
  /** the secrets of the document that this computer lacks */
  missingSecrets: NeededSecret[];
  /** the document missingSecrets is for (an answer for another is dropped) */
  missingSecretsFor: Workflow | null;
  /** the dialog that asks for them is open */
  secretsAskOpen: boolean;
  setMissingSecrets(doc: Workflow | null, list: NeededSecret[]): void;
  setSecretsAskOpen(open: boolean): void;
}

export const createSecretsSlice: StateCreator<StoreState, [], [], SecretsSlice> = (set) => ({
  missingSecrets: [],
  missingSecretsFor: null,
  secretsAskOpen: false,
  setMissingSecrets(doc, list) {
    const missing = list.filter((s) => s.missing);
    set((s) => ({ missingSecrets: missing, missingSecretsFor: doc, secretsAskOpen: s.secretsAskOpen && missing.length > 0 }));
  },
  setSecretsAskOpen(open) {
    set({ secretsAskOpen: open });
  },
});

const NONE: NeededSecret[] = []; // one empty list, so a selector's answer stays the same

/** missingSecretsOf is what is missing for the document shown (nothing for another). */
export function missingSecretsOf(s: Pick<StoreState, 'missingSecrets' | 'missingSecretsFor' | 'doc'>): NeededSecret[] {
  return s.doc && s.missingSecretsFor?.id === s.doc.id ? s.missingSecrets : NONE;
}

/**
 * refreshMissingSecrets asks Go which secrets the document refers to and
 * this computer lacks; ask opens the dialog when some are. An answer that
 * comes back after another workflow was opened is dropped.
 */
export async function refreshMissingSecrets(
  store: AppStore,
  get: ((w: Workflow) => Promise<NeededSecret[]>) | undefined,
  o: { ask?: boolean } = {},
): Promise<NeededSecret[]> {
  const doc = store.getState().doc;
  if (!doc || typeof get !== 'function') return [];
  const list = await get(doc);
  const now = store.getState();
  if (now.doc?.id !== doc.id) return [];
  now.setMissingSecrets(doc, list);
  const missing = list.filter((s) => s.missing);
  if (o.ask && missing.length) now.setSecretsAskOpen(true);
  return missing;
}
