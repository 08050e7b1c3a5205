// Move to secrets: a literal credential a literal_secret warning points at
// becomes a stored secret, and the document gets {{secrets.NAME}} in its
// place as one undo step. Go decides what moves and how
// (backend/literals via app_secrets.go); this only commits the result.
import type { Api } from '../api';
import type { AppStore } from '.';
import { commitWorkflow } from './assistantActions';

export type MoveLiteralApi = Pick<Api, 'moveLiteralToSecrets'>;

export interface LiteralMove {
  node: string;
  path: string;
  /** the name it is written under ('' when none) */
  key: string;
  name: string;
  hosts: string[];
  tools: string[];
}

/** moveLiteral stores the literal and replaces the document with the rewritten one (one undo step). */
export async function moveLiteral(store: AppStore, apiImpl: MoveLiteralApi, m: LiteralMove): Promise<void> {
  const doc = store.getState().doc;
  if (!doc) throw new Error('No workflow is open.');
  const w = await apiImpl.moveLiteralToSecrets(doc, m.node, m.path, m.key, m.name, m.hosts, m.tools);
  if (store.getState().doc !== doc) {
    // Edits made meanwhile are the person's: never overwrite them.
    throw new Error(`The secret ${m.name} is stored, but the workflow changed meanwhile: choose Move to secrets again to put the reference in.`);
  }
  commitWorkflow(store, w, 'Move to secrets');
}

/** defaultBinding prefills where the secret may go: the URL's host of an http_request, else the step's tool (Go decides the same when both are left empty). */
export function defaultBinding(store: AppStore, nodeId: string): { hosts: string[]; tools: string[] } {
  const n = store.getState().doc?.nodes.find((x) => x.id === nodeId);
  const tool = (n?.params as { tool?: string } | undefined)?.tool ?? '';
  if (tool !== 'http_request') return { hosts: [], tools: tool ? [tool] : [] };
  const url = (n?.params as { arguments?: { url?: unknown } }).arguments?.url;
  if (typeof url !== 'string' || url.includes('{{')) return { hosts: [], tools: [] };
  try {
    return { hosts: [new URL(url).host], tools: [] };
  } catch {
    return { hosts: [], tools: [] };
  }
}
