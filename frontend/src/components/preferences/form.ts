// The Preferences form: the settings as editable text, checked on input with
// the same rules the backend applies (backend/settings: Set and
// ValidateServer), and turned back into Settings for SaveSettings.
import type { MCPServer, Settings, SettingsView } from '../../types';

// Ranges, as in backend/settings/settings.go.
export const LIMITS = {
  maxRepair: [0, 10],
  timeoutS: [1, 3600],
  defaultRetries: [0, 10],
  retentionRuns: [1, 10000],
  autoReplanMax: [1, 5],
} as const;

export const MAX_REPAIR_HELP = '0 = skip validation, 1 = validate only, N = validate and retry (up to N model calls)';

export interface EnvRow {
  id: number;
  key: string;
  value: string;
}

export interface McpRow {
  id: number;
  name: string;
  command: string;
  /** arguments as typed: space-separated, "quoted" when they hold spaces */
  args: string;
  env: EnvRow[];
}

export interface PrefsForm {
  baseUrl: string;
  model: string;
  timeoutS: string;
  maxRepair: string;
  allowAiTransforms: boolean;
  allowAgentSteps: boolean;
  mcp: McpRow[];
  defaultRetries: string;
  retentionRuns: string;
  autoReplan: boolean;
  autoReplanMax: string;
  autoReplanSeverity: 'CRITICAL' | 'HIGH';
  engine: 'local' | 'temporal';
  temporalAddress: string;
  temporalNamespace: string;
  temporalQueue: string;
  temporalTls: boolean;
}

/** What happens to the stored API key on save. */
export type KeyEdit = { mode: 'keep' } | { mode: 'replace'; value: string } | { mode: 'clear' };

let rowId = 1;
export function newId(): number {
  return rowId++;
}

/** splitArgs splits a command line into arguments: spaces separate, single
 * or double quotes group, a backslash escapes the next character. */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && i + 1 < s.length && quote !== "'") {
      cur += s[++i];
      has = true;
    } else if (quote) {
      if (c === quote) quote = null;
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/** joinArgs is the inverse of splitArgs. */
export function joinArgs(args: string[]): string {
  return args
    .map((a) => (a !== '' && !/[\s"'\\]/.test(a) ? a : `"${a.replace(/(["\\])/g, '\\$1')}"`))
    .join(' ');
}

export function formFromSettings(s: Settings): PrefsForm {
  const servers = s.mcp_servers ?? {};
  const names = Object.keys(servers).sort();
  return {
    baseUrl: s.llm.base_url ?? '',
    model: s.llm.model ?? '',
    timeoutS: String(s.llm.timeout_s ?? 120),
    maxRepair: String(s.max_repair_attempts ?? 3),
    allowAiTransforms: !!s.features?.allow_ai_transforms,
    allowAgentSteps: !!s.features?.allow_agent_steps,
    mcp: names.map((name) => {
      const srv = servers[name];
      return {
        id: newId(),
        name,
        command: srv.command ?? '',
        args: joinArgs(srv.args ?? []),
        env: Object.entries(srv.env ?? {})
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, value]) => ({ id: newId(), key, value })),
      };
    }),
    defaultRetries: String(s.run?.default_retries ?? 2),
    retentionRuns: String(s.run?.retention_runs ?? 50),
    autoReplan: !!s.run?.auto_replan?.enabled,
    autoReplanMax: String(s.run?.auto_replan?.max_per_run ?? 2),
    autoReplanSeverity: s.run?.auto_replan?.min_severity === 'CRITICAL' ? 'CRITICAL' : 'HIGH',
    engine: s.engine?.kind === 'temporal' ? 'temporal' : 'local',
    temporalAddress: s.engine?.temporal?.address ?? '',
    temporalNamespace: s.engine?.temporal?.namespace || 'default',
    temporalQueue: s.engine?.temporal?.task_queue || 'weft',
    temporalTls: !!s.engine?.temporal?.tls,
  };
}

function int(s: string): number {
  return parseInt(s.trim(), 10);
}

/** settingsFromForm applies a valid form to base (the settings as loaded,
 * whose other fields are kept). */
export function settingsFromForm(f: PrefsForm, base: Settings): Settings {
  const servers: Record<string, MCPServer> = {};
  for (const r of f.mcp) {
    const srv: MCPServer = { command: r.command.trim() };
    const args = splitArgs(r.args);
    if (args.length) srv.args = args;
    const env: Record<string, string> = {};
    for (const e of r.env) if (e.key.trim()) env[e.key.trim()] = e.value;
    if (Object.keys(env).length) srv.env = env;
    servers[r.name.trim()] = srv;
  }
  return {
    ...base,
    max_repair_attempts: int(f.maxRepair),
    llm: { ...base.llm, base_url: f.baseUrl.trim(), model: f.model.trim(), timeout_s: int(f.timeoutS), api_key: undefined },
    features: { ...base.features, allow_ai_transforms: f.allowAiTransforms, allow_agent_steps: f.allowAgentSteps },
    mcp_servers: servers,
    run: {
      ...base.run,
      default_retries: int(f.defaultRetries),
      retention_runs: int(f.retentionRuns),
      auto_replan: { enabled: f.autoReplan, max_per_run: int(f.autoReplanMax), min_severity: f.autoReplanSeverity },
    },
    engine: {
      kind: f.engine,
      temporal: { address: f.temporalAddress.trim(), namespace: f.temporalNamespace.trim(), task_queue: f.temporalQueue.trim(), tls: f.temporalTls },
    },
  };
}

function checkInt(v: string, [lo, hi]: readonly [number, number]): string | null {
  if (!/^\s*-?\d+\s*$/.test(v)) return `Enter a whole number from ${lo} to ${hi}`;
  const n = int(v);
  if (n < lo || n > hi) return `Must be from ${lo} to ${hi}`;
  return null;
}

export function checkBaseUrl(v: string): string | null {
  const t = v.trim();
  if (!t) return 'Enter the endpoint URL, e.g. http://localhost:11434/v1';
  if (!/^https?:\/\/[^\s/]+/.test(t)) return 'Must start with http:// or https:// and name a host';
  return null;
}

export type FormErrors = Record<string, string>;

/** validateForm returns the problems of the form by field; empty means valid. */
export function validateForm(f: PrefsForm): FormErrors {
  const e: FormErrors = {};
  const put = (k: string, m: string | null) => {
    if (m) e[k] = m;
  };
  put('baseUrl', checkBaseUrl(f.baseUrl));
  put('timeoutS', checkInt(f.timeoutS, LIMITS.timeoutS));
  put('maxRepair', checkInt(f.maxRepair, LIMITS.maxRepair));
  put('defaultRetries', checkInt(f.defaultRetries, LIMITS.defaultRetries));
  put('retentionRuns', checkInt(f.retentionRuns, LIMITS.retentionRuns));
  put('autoReplanMax', checkInt(f.autoReplanMax, LIMITS.autoReplanMax));
  if (f.engine === 'temporal') {
    put('temporalAddress', /^[^\s:/]+:\d{1,5}$/.test(f.temporalAddress.trim()) ? null : 'Enter the Temporal frontend as host:port, like localhost:7233');
    put('temporalNamespace', f.temporalNamespace.trim() ? null : 'Enter a namespace');
    put('temporalQueue', f.temporalQueue.trim() ? null : 'Enter a task queue');
  }
  const seen = new Set<string>();
  for (const r of f.mcp) {
    const name = r.name.trim();
    if (!name) put(`mcp.${r.id}.name`, 'Enter a name');
    else if (/[.\s/]/.test(name)) put(`mcp.${r.id}.name`, 'No dots, spaces or slashes (tools are named server.tool)');
    else if (seen.has(name)) put(`mcp.${r.id}.name`, `Another server is named “${name}”`);
    seen.add(name);
    if (!r.command.trim()) put(`mcp.${r.id}.command`, 'Enter the command that starts the server');
    const keys = new Set<string>();
    for (const v of r.env) {
      const k = v.key.trim();
      if (!k) put(`mcp.${r.id}.env.${v.id}`, 'Enter a variable name');
      else if (/[=\s]/.test(k)) put(`mcp.${r.id}.env.${v.id}`, 'No “=” or spaces in a variable name');
      else if (keys.has(k)) put(`mcp.${r.id}.env.${v.id}`, `${k} is set twice`);
      keys.add(k);
    }
  }
  return e;
}

/** keyStatus says what the API key field shows. */
export function keyStatus(view: Pick<SettingsView, 'api_key_set' | 'api_key_masked'>, edit: KeyEdit): string {
  switch (edit.mode) {
    case 'clear':
      return 'will be cleared on save';
    case 'replace':
      return edit.value.trim() ? 'will be replaced on save' : view.api_key_set ? `set (${view.api_key_masked})` : 'not set';
    default:
      return view.api_key_set ? `set (${view.api_key_masked})` : 'not set';
  }
}

/** keyArg is SaveSettings' and TestConnection's apiKey: null keeps the stored key. */
export function keyArg(edit: KeyEdit): string | null {
  switch (edit.mode) {
    case 'clear':
      return '';
    case 'replace':
      return edit.value.trim() ? edit.value.trim() : null;
    default:
      return null;
  }
}
