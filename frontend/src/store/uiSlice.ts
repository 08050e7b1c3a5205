// Transient UI state: the status message and whether a file operation runs.
import type { StateCreator } from 'zustand';
import type { StoreState } from './index';

export interface Status {
  kind: 'error' | 'info';
  text: string;
}

export interface UiSlice {
  status: Status | null;
  busy: boolean;
  setStatus(s: Status | null): void;
  setBusy(b: boolean): void;
}

export const createUiSlice: StateCreator<StoreState, [], [], UiSlice> = (set) => ({
  status: null,
  busy: false,
  setStatus(status) {
    set({ status });
  },
  setBusy(busy) {
    set({ busy });
  },
});
