// Validation problems from the backend, indexed by node for the badges.
import type { StateCreator } from 'zustand';
import type { Problem, ValidationResult } from '../types';
import { edgeIndex, toFlowEdges } from '../graph/toFlow';
import type { StoreState } from './index';

export interface ProblemsSlice {
  problems: Problem[];
  /** null until the current document has been validated */
  valid: boolean | null;
  problemsByNode: Record<string, Problem[]>;
  validating: boolean;
  setValidating(v: boolean): void;
  setValidation(r: ValidationResult): void;
}

export function indexByNode(problems: Problem[]): Record<string, Problem[]> {
  const out: Record<string, Problem[]> = {};
  for (const p of problems) {
    for (const id of new Set(p.node_ids ?? [])) {
      (out[id] ??= []).push(p);
    }
  }
  return out;
}

/** Sort errors before warnings, keeping the backend's order otherwise. */
export function sortProblems(problems: Problem[]): Problem[] {
  const rank = (p: Problem) => (p.severity === 'error' ? 0 : 1);
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map(({ p }) => p);
}

export const createProblemsSlice: StateCreator<StoreState, [], [], ProblemsSlice> = (set, get) => ({
  problems: [],
  valid: null,
  problemsByNode: {},
  validating: false,

  setValidating(v) {
    set({ validating: v });
  },

  setValidation(r) {
    const problems = sortProblems(r.problems ?? []);
    const { doc, edges } = get();
    let nextEdges = edges;
    if (doc) {
      const bad = new Set<number>();
      for (const p of problems) {
        for (const e of p.edges ?? []) {
          const i = edgeIndex(doc, e);
          if (i >= 0 && p.severity === 'error') bad.add(i);
        }
      }
      const fresh = toFlowEdges(doc, bad);
      const selected = new Set(edges.filter((e) => e.selected).map((e) => e.id));
      nextEdges = fresh.map((e) => (selected.has(e.id) ? { ...e, selected: true } : e));
    }
    set({
      problems,
      valid: r.valid,
      problemsByNode: indexByNode(problems),
      validating: false,
      edges: nextEdges,
    });
  },
});
