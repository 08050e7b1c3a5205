// Validation problems from the backend, indexed by node for the badges, and
// the warnings other parts of the app report (planner and patch warnings
// from the assistant), shown in their own section of the problems panel.
import type { StateCreator } from 'zustand';
import type { Problem, ValidationResult } from '../types';
import { edgeKey } from '../graph/edit';
import { toFlowEdges } from '../graph/toFlow';
import type { StoreState } from './index';

/** A warning shown under "Planner and patch warnings". */
export interface EditorWarning {
  /** who reported it, e.g. "assistant"; setWarnings replaces per source */
  source: string;
  /** the pipeline stage, e.g. "repair", "merge" */
  stage?: string;
  message: string;
  node_id?: string;
}

export interface ProblemsSlice {
  problems: Problem[];
  /** null until the current document has been validated */
  valid: boolean | null;
  problemsByNode: Record<string, Problem[]>;
  /** edgeKey of every edge an error names, drawn red */
  problemEdgeKeys: Set<string>;
  validating: boolean;
  warnings: EditorWarning[];
  setValidating(v: boolean): void;
  setValidation(r: ValidationResult): void;
  /** setWarnings replaces the warnings of one source. */
  setWarnings(source: string, list: EditorWarning[]): void;
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

/** Sort errors before warnings before infos, keeping the backend's order otherwise. */
export function sortProblems(problems: Problem[]): Problem[] {
  const rank = (p: Problem) => (p.severity === 'error' ? 0 : p.severity === 'warning' ? 1 : 2);
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map(({ p }) => p);
}

export const createProblemsSlice: StateCreator<StoreState, [], [], ProblemsSlice> = (set, get) => ({
  problems: [],
  valid: null,
  problemsByNode: {},
  problemEdgeKeys: new Set(),
  validating: false,
  warnings: [],

  setValidating(v) {
    set({ validating: v });
  },

  setValidation(r) {
    const problems = sortProblems(r.problems ?? []);
    const { doc, edges } = get();
    const bad = new Set<string>();
    for (const p of problems) {
      if (p.severity !== 'error') continue;
      for (const e of p.edges ?? []) bad.add(edgeKey(e));
    }
    set({
      problems,
      valid: r.valid,
      problemsByNode: indexByNode(problems),
      problemEdgeKeys: bad,
      validating: false,
      edges: doc ? toFlowEdges(doc, bad, edges) : edges,
    });
  },

  setWarnings(source, list) {
    set((s) => ({
      warnings: [...s.warnings.filter((w) => w.source !== source), ...list.map((w) => ({ ...w, source }))],
    }));
  },
});
