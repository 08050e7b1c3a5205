import type { OpenResult, Tool, Workflow } from '../types';

/** A small workflow touching every node type, with positions. */
export function fixtureWorkflow(): Workflow {
  return {
    format: 'weft/v1',
    id: 'wf-1',
    name: 'Fixture',
    custom_top: { kept: true },
    nodes: [
      { id: 'n1', key: 'list', name: 'List files', type: 'Tool', params: { tool: 'fs.list', arguments: { path: '.' } }, position: { x: 0, y: 0 } },
      { id: 'n2', key: 'loop', name: 'Each file', type: 'Loop', params: { exit_condition: 'loop.index >= 3', max_iterations: 10 }, position: { x: 300, y: 0 } },
      { id: 'n3', key: 'check', name: 'Is big', type: 'If', params: { condition: 'list.count > 2' }, position: { x: 600, y: 0 } },
      { id: 'n4', key: 'sum', name: 'Summarise', type: 'AiStep', params: { prompt: 'Summarise the file' }, position: { x: 900, y: -100 }, enabled: false },
      { id: 'n5', key: 'route', name: 'Route', type: 'Switch', params: { cases: [{ name: 'small', condition: 'x < 1' }, { name: 'big', condition: 'x > 9' }] }, position: { x: 900, y: 100 } },
      { id: 'n6', key: 'end', name: 'End loop', type: 'EndLoop', params: { loop_id: 'n2' }, position: { x: 1200, y: 0 } },
    ],
    edges: [
      { from: 'n1', to: 'n2' },
      { from: 'n2', to: 'n3', output: { type: 'LoopBody' } },
      { from: 'n3', to: 'n4', output: { type: 'IfTrue' } },
      { from: 'n3', to: 'n5', output: { type: 'IfFalse' } },
      { from: 'n4', to: 'n6' },
      { from: 'n5', to: 'n6', output: { type: 'SwitchCase', name: 'small' } },
      { from: 'n6', to: 'n2' },
    ],
  };
}

export function fixtureOpen(overrides: Partial<OpenResult> = {}): OpenResult {
  return { path: '/tmp/fixture.json', name: 'fixture.json', workflow: fixtureWorkflow(), warnings: [], ...overrides };
}

/** A small tool catalog: two built-in tools and one MCP tool. */
export const TOOLS: Tool[] = [
  {
    name: 'http_request',
    description: 'Send an HTTP request and capture the response.',
    input_schema: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: ['GET', 'POST'] },
        url: { type: 'string', format: 'uri', description: 'Where to send it' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        body: { type: 'string' },
        retries: { type: 'integer', minimum: 0 },
        follow: { type: 'boolean', default: true },
      },
      required: ['method', 'url'],
      additionalProperties: false,
    },
    outputs: [{ name: 'status', type: 'integer', description: 'HTTP status code' }],
    side_effects: true,
  },
  {
    name: 'read_file',
    description: 'Read a text file.',
    input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    outputs: [{ name: 'content', type: 'string', description: '' }],
    side_effects: false,
  },
  {
    name: 'files.search',
    description: 'Search files (an MCP tool).',
    server: 'files',
    input_schema: { type: 'object', properties: { q: { type: 'string' } } },
    outputs: [],
    side_effects: false,
  },
];
