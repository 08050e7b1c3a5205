// Types of gen-workflow.mjs, for the frontend's layout benchmark.
export function generate(n: number, opts?: { positions?: boolean }): unknown;
