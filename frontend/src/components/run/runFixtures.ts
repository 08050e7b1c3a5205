// Fixtures of the run panel's tests: a summary, an escalation with two
// failed attempts, the end of a run and a step to approve.
import type { ApprovalStep, RunEscalation, RunFinished, RunSummary } from '../../types';

export function summary(over: Partial<RunSummary> = {}): RunSummary {
  return {
    ran: 3,
    nodes: 3,
    first_attempt_successes: 2,
    retried: 0,
    retry_successes: 0,
    escalations: 1,
    skipped: 1,
    handled: 0,
    disabled: 0,
    failed: 0,
    failure_types: { verification_failed: 1 },
    categories: { logic: 1 },
    details: [],
    duration_ms: 1234,
    ...over,
  };
}

export function escalation(over: Partial<RunEscalation['escalation']> = {}): RunEscalation {
  return {
    id: 'r1#1',
    escalation: {
      run_id: 'r1',
      node_id: 'n1',
      node_key: 'list',
      node_name: 'List files',
      node_type: 'Tool',
      tool: 'run_command',
      reason: 'max_attempts',
      attempts: 2,
      max_attempts: 2,
      failures: [
        { attempt: 1, time: '2026-01-02T03:04:05Z', failure_type: 'verification_failed', error: 'verify `list.exit_code == 0` is false', output_summary: 'exit_code: 3', duration_ms: 4, severity: 'MEDIUM', category: 'logic', retryable: true },
        { attempt: 2, time: '2026-01-02T03:04:06Z', failure_type: 'execution_error', error: 'permission denied', output_summary: '', duration_ms: 5, severity: 'HIGH', category: 'permission', retryable: false },
      ],
      last_error: 'permission denied',
      severity: 'HIGH',
      category: 'permission',
      retryable: false,
      suggested_fix: 'Check the permissions.',
      can_replan: false,
      choices: ['retry', 'skip', 'abort', 'fix'],
      ...over,
    },
    after_seq: 0,
  };
}

export function finished(over: Partial<RunFinished> = {}): RunFinished {
  return {
    run_id: 'r1',
    dir: '/tmp/.weft/runs/r1',
    outcome: 'succeeded',
    summary: summary(),
    warnings: [],
    replanned: false,
    started: '2026-01-02T03:04:05Z',
    finished: '2026-01-02T03:04:07Z',
    problems: [],
    after_seq: 0,
    ...over,
  };
}

/**
 * approvalStep is a model-written step to approve. Its display is the step's
 * own text, as Go sends it when nothing had to be escaped; a test of
 * escaping passes the display Go would send.
 */
export function approvalStep(over: Partial<ApprovalStep> = {}): ApprovalStep {
  const s = {
    node_id: 'n1',
    key: 'fetch',
    name: 'Fetch',
    type: 'Tool' as const,
    tool: 'run_command',
    kind: 'command' as const,
    reason: 'runs a shell command',
    arguments: { command: 'curl https://example.com' } as Record<string, unknown>,
    content: '{"command":"curl https://example.com"}',
    fingerprint: 'fp-fetch',
    provenance: { source: 'model', via: 'plan' },
    said: 'planned by a model',
    origin: 'model',
    ...over,
  };
  const display = {
    name: s.name,
    key: s.key,
    tool: s.tool,
    reason: s.reason,
    arguments: Object.keys(s.arguments ?? {})
      .sort()
      .map((name) => {
        const v = s.arguments[name];
        return typeof v === 'string' ? { name, value: v } : { name, value: JSON.stringify(v, null, 2), json: true };
      }),
    prompt: s.prompt,
    tools: s.tools,
    other: [],
    content: s.content,
    escaped: false,
  };
  return { ...s, display: over.display ?? display };
}
