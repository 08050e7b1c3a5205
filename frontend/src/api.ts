// The one module that talks to Go. Everything else imports from here, so the
// bindings generated from the Go types (gen/bindings.ts, `make types`) are
// wrapped in one place, where the lists Go writes as null become [], and
// tests can mock this module alone.
import * as App from './gen/bindings';
import type { main, service } from './gen/bindings';
import type { Example } from './types';
import { EventsOn, LogError, LogInfo, LogWarning, WindowSetTitle } from '../wailsjs/runtime/runtime';
import type {
  AutosaveView,
  RecentFile,
  AppliedPatch,
  AssistantProgress,
  AssistantResult,
  ChatHistory,
  ConnectionInfo,
  FileTrust,
  KeyUse,
  LocalServer,
  OpenResult,
  PatchPreview,
  WorkflowPatch,
  Settings,
  SettingsView,
  Tool,
  ValidationResult,
  Workflow,
  Reference,
  RefPlace,
} from './types';
// Run panel (app_run.go):
import type {
  RunEscalation,
  RunEvent,
  RunFinished,
  RunHistory,
  RunLogFile,
  RunReplan,
  RunResponse,
  RunStart,
  RunStatusView,
  InputsForm,
  PinSource,
  ApprovalStep,
  ToolCatalogResult,
} from './types';
// Schedules (app_schedules.go):
import type { CronPreview, GoingRun, NeededSecret, NewSchedule, ScheduleEntry, ScheduleResult, SchedulesView, ScheduleUpdateResult, ShownEntry } from './types';
// Tests panel (app_tests.go):
import type { CaseFile, RecordedCase, TestRun } from './types';
// Secrets and Temporal credentials (app_secrets.go, app_engine.go):
import type { SecretEntry, SecretsView, TemporalCredentials } from './types';

/** errorMessage turns whatever a rejected binding gives into text. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}

function normOpen(r: main.OpenResult): OpenResult {
  return {
    path: r?.path ?? '',
    name: r?.name ?? '',
    workflow: r?.workflow ?? null,
    warnings: r?.warnings ?? [],
    file: r?.file ? normTrust(r.file) : undefined,
  };
}

/** given is v, which Go returns as a pointer; nil without an error is a failure too. */
function given<T>(v: T | null, what: string): T {
  if (v == null) throw new Error(`${what}: the backend returned nothing`);
  return v;
}

function normTrust(t: FileTrust | null | undefined): FileTrust {
  return { path: t?.path ?? '', trusted: !!t?.trusted, why: t?.why ?? '', folder: t?.folder, changed: !!t?.changed, sha256: t?.sha256 };
}

function normCases(c: service.CaseFile | null | undefined): CaseFile {
  return { file: c?.file ?? '', exists: !!c?.exists, sha256: c?.sha256 ?? '', cases: c?.cases ?? [], error: c?.error };
}

export const api = {
  async loadSample(): Promise<OpenResult> {
    return normOpen(await App.LoadSample());
  },
  /** What opens at start: the workflow last opened or saved, or the sample
   * with a notice that says why not (Go decides: backend/lastfile). */
  async loadStart(): Promise<{ open: OpenResult; notice: string }> {
    const r = await App.LoadStart();
    return { open: normOpen(r?.open), notice: r?.notice ?? '' };
  },
  /** The examples gallery: file, name and goal of each. */
  async examples(): Promise<Example[]> {
    return (await App.Examples()) ?? [];
  },
  /** Opens an example as a new unsaved workflow (no path). */
  async openExample(file: string): Promise<OpenResult> {
    return normOpen(await App.OpenExample(file));
  },
  async openWorkflow(path: string): Promise<OpenResult> {
    return normOpen(await App.OpenWorkflow(path));
  },
  /** Shows the native open dialog; a cancelled dialog gives workflow null. */
  async openWorkflowDialog(): Promise<OpenResult> {
    return normOpen(await App.OpenWorkflowDialog());
  },
  /** from is the path the document was opened from or last saved to ('' for a
   * new one): the file's trust carries over from there (Go decides). */
  async saveWorkflow(path: string, w: Workflow, from: string): Promise<void> {
    await App.SaveWorkflow(path, w, from);
  },
  /** Shows the native save dialog; returns the path saved to, or '' if cancelled. */
  async saveWorkflowAsDialog(w: Workflow, from: string): Promise<string> {
    return App.SaveWorkflowAsDialog(w, from);
  },
  /** path is the document's file ('' unsaved): a sub-workflow's file is looked for beside it. */
  async validateWorkflow(w: Workflow, path = ''): Promise<ValidationResult> {
    const r = await App.ValidateWorkflow(w, path);
    return { valid: !!r?.valid, problems: r?.problems ?? [] };
  },
  /** What a text of node nodeId may read at place (the `{{` completion);
   * Go answers by the rules validation reports unknown references by. */
  async referencesAt(w: Workflow, nodeId: string, place: RefPlace): Promise<Reference[]> {
    return (await App.ReferencesAt(w, nodeId, place)) ?? [];
  },
  /** Returns why expr is not a valid condition, or '' when it is. */
  async checkCondition(expr: string): Promise<string> {
    return App.CheckCondition(expr);
  },
  async toolCatalog(): Promise<Tool[]> {
    return (await App.ToolCatalog()) ?? [];
  },
  async getSettings(): Promise<SettingsView> {
    const v = await App.GetSettings();
    return { ...v, warnings: v.warnings ?? [] };
  },
  /** apiKey null keeps the stored key, '' clears it. Returns warnings. */
  async saveSettings(s: Settings, apiKey: string | null): Promise<string[]> {
    return (await App.SaveSettings(s, apiKey)) ?? [];
  },
  // --- Assistant and Preferences ---
  /** Asks the assistant; progress arrives through onAssistantProgress. */
  async assistantSend(workflow: Workflow, path: string, message: string): Promise<AssistantResult> {
    const r = given(await App.AssistantSend({ workflow, path, message }), 'the assistant');
    return { ...r, warnings: r.warnings ?? [], problems: r.problems ?? [] };
  },
  /** Cancels the request in flight; assistantSend then rejects with ASSISTANT_STOPPED. */
  async assistantStop(): Promise<boolean> {
    return App.AssistantStop();
  },
  async assistantHistory(workflowId: string, path: string): Promise<ChatHistory> {
    const h = await App.AssistantHistory(workflowId, path);
    return { messages: h?.messages ?? [], path: h?.path ?? '', warnings: h?.warnings ?? [] };
  },
  async assistantClearHistory(workflowId: string, path: string): Promise<void> {
    await App.AssistantClearHistory(workflowId, path);
  },
  async previewPatch(w: Workflow, patch: WorkflowPatch): Promise<PatchPreview> {
    const r = await App.PreviewPatch(w, patch);
    return { ...r, workflow: given(r.workflow, 'the preview'), warnings: r.warnings ?? [], problems: r.problems ?? [] };
  },
  async applyPatch(w: Workflow, patch: WorkflowPatch): Promise<AppliedPatch> {
    const r = await App.ApplyPatch(w, patch);
    return { workflow: given(r.workflow, 'the patch'), warnings: r.warnings ?? [] };
  },
  /**
   * Checks the endpoint in the Preferences form. apiKey null uses the stored
   * key, which Go sends only to the saved endpoint, or to another one when
   * sendStoredKey says the person confirmed it; '' tests without a key.
   */
  async testConnection(llm: Pick<Settings['llm'], 'base_url' | 'model' | 'timeout_s'>, apiKey: string | null, sendStoredKey = false): Promise<ConnectionInfo> {
    // Go reads only these three of settings.LLM (and the key): the rest are their zero values, as if left out.
    return App.TestConnection({ ...llm, total_timeout_s: 0, structured_output: '' }, apiKey, sendStoredKey);
  },
  /** Whether Test connection may send the stored API key to baseUrl without asking. */
  async storedKeyUse(baseUrl: string): Promise<KeyUse> {
    return App.StoredKeyUse(baseUrl);
  },
  /** Looks for model servers on this machine (first-run setup). */
  async discoverModelServers(): Promise<LocalServer[]> {
    return ((await App.DiscoverModelServers()) ?? []).map((s) => ({ ...s, models: s.models ?? [] }));
  },
  /** Subscribes to the backend's assistant progress events; returns the unsubscribe. */
  onAssistantProgress(cb: (p: AssistantProgress) => void): () => void {
    try {
      return EventsOn('assistant:progress', (p: AssistantProgress) => cb(p));
    } catch {
      return () => {}; // no Wails runtime (plain browser, tests)
    }
  },
  // --- Editor session: autosave, recent files, closing with unsaved changes ---
  async autosave(w: Workflow, path: string, name: string): Promise<void> {
    await App.Autosave(w, path, name);
  },
  async loadAutosave(): Promise<AutosaveView> {
    const r = await App.LoadAutosave();
    return {
      found: !!r?.found && !!r.workflow,
      saved_at: r?.saved_at ?? '',
      path: r?.path ?? '',
      name: r?.name ?? '',
      workflow: r?.workflow ?? null,
      warnings: r?.warnings ?? [],
    };
  },
  async clearAutosave(): Promise<void> {
    await App.ClearAutosave();
  },
  async recentFiles(): Promise<RecentFile[]> {
    return (await App.RecentFiles()) ?? [];
  },
  async addRecentFile(path: string): Promise<RecentFile[]> {
    return (await App.AddRecentFile(path)) ?? [];
  },
  async removeRecentFile(path: string): Promise<RecentFile[]> {
    return (await App.RemoveRecentFile(path)) ?? [];
  },
  /** setDirty tells the backend, so that closing the window asks first. */
  async setDirty(dirty: boolean): Promise<void> {
    await App.SetDirty(dirty);
  },
  /** confirmClose closes the window (the user chose to discard or has saved). */
  async confirmClose(): Promise<void> {
    await App.ConfirmClose();
  },
  async cancelClose(): Promise<void> {
    await App.CancelClose();
  },
  /** onCloseRequested: the window is closing with unsaved changes; returns the unsubscribe. */
  onCloseRequested(cb: () => void): () => void {
    try {
      return EventsOn('weft:close-requested', () => cb());
    } catch {
      return () => {}; // no Wails runtime (plain browser, tests)
    }
  },
  // --- Run panel (app_run.go) ---
  /** Starts a run in the background; started false with problems or approval steps when it cannot. */
  /** inputs are a Run form's values by name, as typed: Go parses and checks them (input_problems when they do not fit); secretInputs give secret inputs stored secrets by name. */
  async startRun(w: Workflow, path: string, approved?: string[], from?: string, inputs?: Record<string, string>, secretInputs?: Record<string, string>): Promise<RunStart> {
    const r = await (inputs
      ? App.StartRunWithInputs(w, path, approved ?? [], from ?? '', inputs, secretInputs ?? {})
      : from
        ? App.StartRunFrom(w, path, from, approved ?? [])
        : approved
          ? App.StartApprovedRun(w, path, approved)
          : App.StartRun(w, path));
    return {
      started: !!r?.started,
      error: r?.error ?? '',
      problems: r?.problems ?? [],
      approval: r?.approval ?? [],
      warnings: r?.warnings ?? [],
      missing_secrets: r?.missing_secrets ?? [],
      input_problems: r?.input_problems ?? [],
    };
  },
  /** The inputs a workflow declares, in its file's order, for the Run form; problems when its schema is unusable. */
  async workflowInputs(w: Workflow): Promise<InputsForm> {
    const f = await App.WorkflowInputs(w);
    return { fields: f?.fields ?? [], problems: f?.problems ?? [], secrets: f?.secrets ?? [] };
  },
  // --- Tests panel (app_tests.go) ---
  /** Plays the cases beside the file at path against w (the editor's copy) with nothing acting; only names one case ('' plays all). */
  async runTests(w: Workflow, path: string, only = ''): Promise<TestRun> {
    const r = await App.RunTests(w, path, only);
    const rep = r?.report;
    return {
      error: r?.error ?? '',
      problems: r?.problems ?? [],
      report: rep
        ? { ...rep, unapproved: rep.unapproved ?? [], cases: (rep.cases ?? []).map((c) => ({ ...c, path: c.path ?? [], failures: c.failures ?? [] })) }
        : null,
    };
  },
  /** Adds a case made from the last local run of the saved file to its case file ('' names it after the run). */
  async recordTestCase(path: string, name: string): Promise<RecordedCase> {
    const r = await App.RecordTestCase(path, name);
    return { ...r, fill_in: r?.fill_in ?? [] };
  },
  /** The case file beside the file at path: each case's mocks as written, or why it cannot be used. */
  async readTestCases(path: string): Promise<CaseFile> {
    return normCases(await App.ReadTestCases(path));
  },
  /** Replaces a case's mocks (JSON text) once Go finds them and the file valid; base is the file's sha256 as read. Rejects with where and what. */
  async saveTestCaseMocks(path: string, name: string, mocks: string, base: string): Promise<CaseFile> {
    return normCases(await App.SaveTestCaseMocks(path, name, mocks, base));
  },
  /** Which Temporal credentials are set (their values never come back). */
  async getTemporalCredentials(): Promise<TemporalCredentials> {
    return App.GetTemporalCredentials();
  },
  /** Stores the Temporal API key / payload key in the OS keyring: undefined keeps one, '' removes it. */
  async setTemporalCredentials(apiKey: string | undefined, payloadKey: string | undefined): Promise<TemporalCredentials> {
    return App.SetTemporalCredentials(apiKey ?? null, payloadKey ?? null);
  },
  /** The named secrets (app_secrets.go): names, bindings and where each is stored, never a value. */
  async listSecrets(): Promise<SecretsView> {
    const v = await App.ListSecrets();
    return { secrets: v.secrets ?? [], warning: v.warning };
  },
  /** Stores a secret's value (OS keyring, or a 0600 file) with the hosts and tools it may go to. */
  async setSecret(name: string, value: string, hosts: string[], tools: string[]): Promise<void> {
    await App.SetSecret(name, value, hosts, tools);
  },
  /** Changes where a stored secret may go, keeping its value. */
  async setSecretBindings(name: string, hosts: string[], tools: string[]): Promise<void> {
    await App.SetSecretBindings(name, hosts, tools);
  },
  async removeSecret(name: string): Promise<void> {
    await App.RemoveSecret(name);
  },
  /** Moves the literal credential at path in node's arguments (a literal_secret warning) into the store as name, bound to hosts and tools (none: the URL's host or the step's tool); returns the workflow with {{secrets.NAME}} in its place. */
  async moveLiteralToSecrets(w: Workflow, node: string, path: string, key: string, name: string, hosts: string[], tools: string[]): Promise<Workflow> {
    return given(await App.MoveLiteralToSecrets(w, node, path, key, name, hosts, tools), 'moving the secret');
  },
  /** The secrets a workflow refers to, which this computer lacks and the hosts and tools their uses suggest (app_secretneeds.go). */
  async workflowSecrets(w: Workflow): Promise<NeededSecret[]> {
    return (await App.WorkflowSecrets(w)) ?? [];
  },
  /** Runs of the workflow saved at path going on the Temporal service that the app does not follow. */
  async temporalRunsGoing(path: string): Promise<GoingRun[]> {
    return (await App.TemporalRunsGoing(path)) ?? [];
  },
  /** Follows a run going on the Temporal service in the Run panel, as if it had started here. */
  async followTemporalRun(runId: string): Promise<RunStart> {
    const r = await App.FollowTemporalRun(runId);
    return { started: !!r?.started, error: r?.error ?? '', problems: r?.problems ?? [], approval: r?.approval ?? [], warnings: r?.warnings ?? [] };
  },
  /** Every schedule, how its runs went, and who can run them here. */
  async listSchedules(): Promise<SchedulesView> {
    const v = await App.ListSchedules();
    return { ...v, schedules: v?.schedules ?? [], scheduler: v?.scheduler ?? '', temporal: v?.temporal ?? '' };
  },
  /** Makes a schedule of the saved file, or says why not (problems, steps waiting for approval). */
  async addSchedule(req: NewSchedule): Promise<ScheduleResult> {
    const r = await App.AddSchedule(req);
    return {
      started: !!r?.started,
      error: r?.error ?? '',
      problems: r?.problems ?? [],
      approval: r?.approval ?? [],
      warnings: r?.warnings ?? [],
      schedule: r?.schedule,
      entry: r?.entry,
    };
  },
  /** The entry a local schedule would give this computer's scheduler (a crontab line, systemd unit files), to show before addSchedule installs it. */
  async previewSchedule(req: NewSchedule): Promise<ShownEntry> {
    return App.PreviewSchedule(req);
  },
  /** The systemd user service that would keep weft serve running for the folder of the file at path (the triggers of its workflows), or why there is none. */
  async serveUnit(path: string): Promise<main.ServeUnitView> {
    return App.ServeUnit(path);
  },
  /** Installs and starts that service, only if it is still exactly shown. */
  async installServeUnit(path: string, shown: string): Promise<void> {
    await App.InstallServeUnit(path, shown);
  },
  /** The schedules of the file saved at path whose runs are refused because it changed since they were made. */
  async staleSchedules(path: string): Promise<ScheduleEntry[]> {
    return (await App.StaleSchedules(path)) ?? [];
  },
  /** Makes the schedules of the file saved at path run it as it is now, or says what waits for approval. */
  async updateSchedules(path: string, approved: string[]): Promise<ScheduleUpdateResult> {
    const r = await App.UpdateSchedules(path, approved);
    return {
      started: !!r?.started,
      error: r?.error ?? '',
      problems: r?.problems ?? [],
      approval: r?.approval ?? [],
      warnings: r?.warnings ?? [],
      updated: r?.updated ?? [],
    };
  },
  async setSchedulePaused(id: string, paused: boolean): Promise<void> {
    await App.SetSchedulePaused(id, paused);
  },
  async removeSchedule(id: string): Promise<void> {
    await App.RemoveSchedule(id);
  },
  /** What a cron expression means: its next run times, or what is wrong with it. */
  async previewCron(expr: string): Promise<CronPreview> {
    const p = await App.PreviewCron(expr);
    return { error: p?.error, words: p?.words, next: p?.next ?? [] };
  },
  /** Scheduled workflows that need attention (last run failed, a due run missing), one line each. */
  async scheduleNotices(): Promise<string[]> {
    return (await App.ScheduleNotices()) ?? [];
  },
  /** What the step produced in the workflow's last run in this window (secrets hidden), to pin. */
  async lastOutputs(workflowId: string, nodeId: string): Promise<PinSource> {
    const r = await App.LastOutputs(workflowId, nodeId);
    return { outputs: r?.outputs ?? {}, run_id: r?.run_id ?? '' };
  },
  async stopRun(): Promise<boolean> {
    return App.StopRun();
  },
  async respondEscalation(id: string, resp: RunResponse): Promise<void> {
    await App.RespondEscalation(id, resp);
  },
  /** keepFix merges a fix's arguments into the node, as the retry used them (in Go). */
  async keepFix(w: Workflow, nodeId: string, args: Record<string, unknown>): Promise<Workflow> {
    return given(await App.KeepFix(w, nodeId, args), 'keeping the fix');
  },
  async runStatus(): Promise<RunStatusView> {
    const r = await App.GetRunStatus();
    return { running: !!r?.running, run_id: r?.run_id ?? '', workflow_id: r?.workflow_id ?? '', escalation: r?.escalation ?? null, can_replan: !!r?.can_replan };
  },
  async canReplan(): Promise<boolean> {
    return App.CanReplan();
  },
  async runHistory(path: string, workflowId: string): Promise<RunHistory> {
    const r = await App.RunHistory(path, workflowId);
    return { dir: r?.dir ?? '', runs: r?.runs ?? [], warnings: r?.warnings ?? [] };
  },
  async runEvents(runDir: string): Promise<RunLogFile> {
    const r = await App.RunEvents(runDir);
    return { events: r?.events ?? [], total: r?.total ?? 0, truncated: !!r?.truncated, warnings: r?.warnings ?? [] };
  },
  /** The steps of w (saved at path) that wait for the person's approval: a model's, or all that act or route in a file not reviewed. */
  async pendingApprovals(w: Workflow, path: string): Promise<ApprovalStep[]> {
    return (await App.PendingApprovals(w, path)) ?? [];
  },
  /** The trust of the workflow file at path ('' for an unsaved one: trusted, made in Weft). */
  async workflowFileTrust(path: string): Promise<FileTrust> {
    return normTrust(await App.WorkflowFileTrust(path));
  },
  /** Records the person's approval of these steps' exact content (by fingerprint); returns the steps still waiting. */
  async approveSteps(w: Workflow, path: string, fingerprints: string[]): Promise<ApprovalStep[]> {
    return (await App.ApproveSteps(w, path, fingerprints)) ?? [];
  },
  /** The built-in and MCP tools, with why some MCP tools are missing. */
  async toolCatalogFull(): Promise<ToolCatalogResult> {
    const r = await App.ToolCatalogFull();
    return { tools: r?.tools ?? [], warnings: r?.warnings ?? [] };
  },
  /**
   * Subscribes to the run's events ("run:event", "run:escalation", "run:replanned", "run:finished";
   * "run:notice", a sentence, at any time: why a Temporal run does not go on, e.g. no worker polls its queue).
   */
  onRun(h: {
    event(e: RunEvent): void;
    escalation(e: RunEscalation): void;
    replanned(r: RunReplan): void;
    finished(f: RunFinished): void;
    notice?(text: string): void;
  }): () => void {
    try {
      const offs = [
        EventsOn('run:event', (e: RunEvent) => h.event(e)),
        EventsOn('run:escalation', (e: RunEscalation) => h.escalation(e)),
        EventsOn('run:replanned', (r: RunReplan) => h.replanned(r)),
        EventsOn('run:finished', (f: RunFinished) => h.finished(f)),
        EventsOn('run:notice', (text: string) => h.notice?.(text)),
      ];
      return () => offs.forEach((off) => off());
    } catch {
      return () => {}; // no Wails runtime (plain browser, tests)
    }
  },
  /** log writes to the app's log (stdout of the Go process) when in Wails. */
  log(level: 'info' | 'warning' | 'error', msg: string): void {
    try {
      (level === 'error' ? LogError : level === 'warning' ? LogWarning : LogInfo)(`frontend: ${msg}`);
    } catch {
      // No Wails runtime (plain browser, tests).
    }
  },
  setWindowTitle(title: string): void {
    document.title = title;
    try {
      WindowSetTitle(title);
    } catch {
      // Outside the Wails window (plain browser, tests) there is no runtime.
    }
  },
};

// Imported from here by the Preferences dialog.
export type { SecretEntry, SecretsView, TemporalCredentials };

export type Api = typeof api;

/** The error text AssistantSend rejects with after AssistantStop (app_assistant.go). */
export const ASSISTANT_STOPPED = 'assistant: stopped';
