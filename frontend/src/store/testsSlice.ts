// The Tests panel's state: the case file beside the saved workflow (each
// case's mocks as written), the last report of playing its cases (Go
// plays them with nothing acting: app_tests.go) and which are playing.
// Everything is for one file (testsPath); an answer for another file,
// one that came back after the document was switched, is dropped.
import type { StateCreator } from 'zustand';
import type { CaseFile, Problem, TestReport, TestRun, Workflow } from '../types';
import type { StoreState } from './index';

export interface TestsSlice {
  /** the saved file the state is for ('' none) */
  testsPath: string;
  caseFile: CaseFile | null;
  caseFileLoading: boolean;
  /** why the case file could not be read at all */
  caseFileError: string;
  testReport: TestReport | null;
  /** the document the report played: another one means it may be stale */
  testReportDoc: Workflow | null;
  /** why the cases could not be played (no cases, an unusable file, an invalid workflow) */
  testRunError: string;
  /** the workflow's problems, when it is invalid */
  testRunProblems: Problem[];
  /** the case playing ('' all of them), null when none is */
  testsRunning: string | null;
  /** testsFor makes the state be for path, cleared when it was for another file */
  testsFor(path: string): void;
  setCaseFileLoading(path: string): void;
  setCaseFile(path: string, cf: CaseFile | null, error?: string): void;
  startTests(path: string, only: string): void;
  /** finishTests takes a run's answer; playing one case replaces only its result in the report */
  finishTests(path: string, only: string, doc: Workflow, run: TestRun): void;
  failTests(path: string, error: string): void;
}

const cleared = {
  caseFile: null,
  caseFileLoading: false,
  caseFileError: '',
  testReport: null,
  testReportDoc: null,
  testRunError: '',
  testRunProblems: [],
  testsRunning: null,
} satisfies Partial<TestsSlice>;

/** mergeReport puts one case's new result into the report of all of them. */
export function mergeReport(prev: TestReport | null, next: TestReport, only: string): TestReport {
  if (!only || !prev) return next;
  const mine = next.cases.find((c) => c.name === only);
  if (!mine) return prev;
  const cases = prev.cases.some((c) => c.name === only) ? prev.cases.map((c) => (c.name === only ? mine : c)) : [...prev.cases, mine];
  const passed = cases.filter((c) => c.passed).length;
  return { ...next, cases, passed, failed: cases.length - passed };
}

export const createTestsSlice: StateCreator<StoreState, [], [], TestsSlice> = (set, get) => ({
  testsPath: '',
  ...cleared,
  testsFor(path) {
    if (get().testsPath !== path) set({ testsPath: path, ...cleared });
  },
  setCaseFileLoading(path) {
    if (get().testsPath === path) set({ caseFileLoading: true });
  },
  setCaseFile(path, cf, error = '') {
    if (get().testsPath !== path) return;
    set({ caseFile: cf, caseFileError: error, caseFileLoading: false });
  },
  startTests(path, only) {
    if (get().testsPath === path) set({ testsRunning: only });
  },
  finishTests(path, only, doc, run) {
    const s = get();
    if (s.testsPath !== path) return;
    if (!run.report) {
      set({ testsRunning: null, testRunError: run.error, testRunProblems: run.problems });
      return;
    }
    set({
      testsRunning: null,
      testRunError: '',
      testRunProblems: [],
      testReport: mergeReport(s.testReport, run.report, only),
      testReportDoc: doc,
    });
  },
  failTests(path, error) {
    if (get().testsPath === path) set({ testsRunning: null, testRunError: error, testRunProblems: [] });
  },
});
