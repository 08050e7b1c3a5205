import { beforeEach, describe, expect, it } from 'vitest';
import { fixtureWorkflow } from '../test/fixtures';
import type { TestCaseResult, TestReport, TestRun } from '../types';
import { createAppStore } from './index';
import { mergeReport } from './testsSlice';

const ok = (name: string): TestCaseResult => ({ name, passed: true, path: ['n1'], failures: [], duration_ms: 1 });
const bad = (name: string): TestCaseResult => ({
  name,
  passed: false,
  path: ['n1'],
  failures: [{ step: 'n1', what: 'output', expected: 'a', actual: 'b', message: 'n1.stdout differs' }],
  duration_ms: 1,
});

function report(cases: TestCaseResult[]): TestReport {
  const passed = cases.filter((c) => c.passed).length;
  return { workflow: '/w.json', file: '/w.tests.json', passed, failed: cases.length - passed, cases, unapproved: [] };
}

const run = (cases: TestCaseResult[]): TestRun => ({ report: report(cases), error: '', problems: [] });

let store: ReturnType<typeof createAppStore>;
const s = () => store.getState();

beforeEach(() => {
  store = createAppStore();
});

describe('the Tests panel state', () => {
  it('takes a report of all the cases, and one case played again replaces only its result', () => {
    const doc = fixtureWorkflow();
    s().testsFor('/w.json');
    s().startTests('/w.json', '');
    expect(s().testsRunning).toBe('');
    s().finishTests('/w.json', '', doc, run([ok('a'), bad('b'), ok('c')]));
    expect(s().testsRunning).toBeNull();
    expect(s().testReport?.failed).toBe(1);
    expect(s().testReportDoc).toBe(doc);

    s().startTests('/w.json', 'b');
    s().finishTests('/w.json', 'b', doc, run([ok('b')]));
    expect(s().testReport?.cases.map((c) => [c.name, c.passed])).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
    ]);
    expect([s().testReport?.passed, s().testReport?.failed]).toEqual([3, 0]);
  });

  it('keeps why the cases could not be played, and clears it on the next report', () => {
    s().testsFor('/w.json');
    s().finishTests('/w.json', '', fixtureWorkflow(), { report: null, error: 'no test cases: record one', problems: [] });
    expect(s().testRunError).toBe('no test cases: record one');
    expect(s().testReport).toBeNull();
    s().failTests('/w.json', 'the backend went away');
    expect(s().testRunError).toBe('the backend went away');
    s().finishTests('/w.json', '', fixtureWorkflow(), run([ok('a')]));
    expect(s().testRunError).toBe('');
    expect(s().testReport?.passed).toBe(1);
  });

  it('drops answers for another file, and forgets a file when another one is shown', () => {
    s().testsFor('/w.json');
    s().setCaseFile('/w.json', { file: '/w.tests.json', exists: true, sha256: 'x', cases: [{ name: 'a', mocks: '{}' }] });
    s().finishTests('/w.json', '', fixtureWorkflow(), run([ok('a')]));
    s().testsFor('/other.json');
    expect(s().caseFile).toBeNull();
    expect(s().testReport).toBeNull();
    // A late answer for the file no longer shown.
    s().setCaseFile('/w.json', { file: '/w.tests.json', exists: true, sha256: 'x', cases: [] });
    s().finishTests('/w.json', '', fixtureWorkflow(), run([bad('a')]));
    s().failTests('/w.json', 'late');
    expect(s().caseFile).toBeNull();
    expect(s().testReport).toBeNull();
    expect(s().testRunError).toBe('');
    // The same file again keeps its state.
    s().setCaseFile('/other.json', { file: '/other.tests.json', exists: false, sha256: '', cases: [] });
    s().testsFor('/other.json');
    expect(s().caseFile?.file).toBe('/other.tests.json');
  });
});

describe('mergeReport', () => {
  it('adds a case the report did not have, and ignores an answer without the case', () => {
    const prev = report([ok('a')]);
    expect(mergeReport(prev, report([bad('new')]), 'new').cases.map((c) => c.name)).toEqual(['a', 'new']);
    expect(mergeReport(prev, report([]), 'gone')).toBe(prev);
    const all = report([bad('a')]);
    expect(mergeReport(prev, all, '')).toBe(all);
    expect(mergeReport(null, all, 'a')).toBe(all);
  });
});
