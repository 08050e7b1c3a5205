package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/weft-dev/weft/backend/lastfile"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// SampleName is the display name of the embedded sample workflow.
const SampleName = "sample.json"

// OpenResult is what opening a workflow gives the frontend. Path is empty
// for the embedded sample and for a cancelled dialog (then Workflow is nil).
type OpenResult struct {
	Path     string             `json:"path"`
	Name     string             `json:"name"`
	Workflow *workflow.Workflow `json:"workflow"`
	Warnings []string           `json:"warnings"`
	// File is the file's trust: when it is not trusted (Weft did not
	// write it, or it changed since it was reviewed), everything in it
	// that acts or routes is reviewed before it runs (PendingApprovals).
	File service.FileTrust `json:"file"`
}

// SettingsView is the settings as the frontend sees them: never the API key
// itself, only whether one is set and its masked form.
type SettingsView struct {
	Settings     settings.Settings `json:"settings"`
	APIKeySet    bool              `json:"api_key_set"`
	APIKeyMasked string            `json:"api_key_masked"`
	Path         string            `json:"path"`
	Warnings     []string          `json:"warnings"`
}

// Dialogs are the native file dialogs; tests replace them.
type Dialogs interface {
	Open(ctx context.Context, opts runtime.OpenDialogOptions) (string, error)
	Save(ctx context.Context, opts runtime.SaveDialogOptions) (string, error)
}

type wailsDialogs struct{}

func (wailsDialogs) Open(ctx context.Context, o runtime.OpenDialogOptions) (string, error) {
	return runtime.OpenFileDialog(ctx, o)
}

func (wailsDialogs) Save(ctx context.Context, o runtime.SaveDialogOptions) (string, error) {
	return runtime.SaveFileDialog(ctx, o)
}

var workflowFilters = []runtime.FileFilter{
	{DisplayName: "Weft workflows (*.json)", Pattern: "*.json"},
	{DisplayName: "All files", Pattern: "*"},
}

// App is bound to the frontend. Its methods stay thin: each delegates to a
// backend package and returns errors rather than panicking.
type App struct {
	ctx     context.Context
	sample  []byte
	catalog *tools.Catalog
	dialogs Dialogs

	mu       sync.Mutex
	newStore func() (*settings.Store, error)
	store    *settings.Store
	lastDir  string

	// session: autosave, recent files and the close guard (app_session.go).
	session appSession

	// versions keeps every saved state of a workflow so any two can be
	// compared (replans add theirs too); nil keeps none.
	versions func() (*versions.Store, error)
	// lastFile records the file last opened or saved, reopened at start
	// (app_start.go); nil records none.
	lastFile func() (*lastfile.Store, error)

	// The assistant's plumbing (app_assistant.go) and the application
	// layer the run bindings call (app_run.go), made on first use so an App
	// literal in tests works too.
	stateOnce sync.Once
	assist    *assistantState
	svc       *service.Service
	// run is the run this window started or follows (app_run.go).
	run currentRun
	// tuneService, when set, adjusts the service's dependencies before it
	// is made (tests: a fast retry sleep, a fake replanner or MCP listing).
	tuneService func(*service.Deps)
}

func (a *App) initState() {
	a.assist = &assistantState{}
	d := a.serviceDeps()
	if a.tuneService != nil {
		a.tuneService(&d)
	}
	a.svc = service.New(d)
}

// NewApp returns the App with the built-in tool catalog, the embedded
// sample, the OS dialogs and the settings store at the XDG path.
func NewApp() *App {
	return &App{
		sample:   sampleWorkflow,
		catalog:  tools.Builtin(),
		dialogs:  wailsDialogs{},
		newStore: settings.NewStore,
		versions: versions.DefaultStore,
		lastFile: lastfile.DefaultStore,
	}
}

func (a *App) startup(ctx context.Context) {
	a.ctx = ctx
	// A killed Weft may have left temp files beside the user's settings
	// and session: remove them before anything is read.
	service.RemoveStaleTemps(time.Now(), nil)
}

// shutdown runs when the window has closed: a run in progress is stopped
// (its tools and MCP servers end with it, its log records where it
// stopped) and a pending assistant request is cancelled, so nothing is
// left running or half-written behind the closed window.
func (a *App) shutdown(context.Context) {
	a.AssistantStop()
	// A run on Temporal goes on without the window (the app offers to
	// follow it again when it opens); a local one stops.
	if a.service().Leave() && !a.waitRun(10*time.Second) {
		slog.Warn("the run in progress did not stop within 10s of closing the window")
	}
	if err := a.service().Close(); err != nil {
		slog.Warn("stopping the MCP servers", "error", err)
	}
}

func (a *App) context() context.Context {
	if a.ctx == nil {
		return context.Background()
	}
	return a.ctx
}

// LoadSample opens the sample workflow built into the app (at start when
// there is no last file to reopen: LoadStart).
func (a *App) LoadSample() (OpenResult, error) {
	w, warnings, err := workflow.Parse(a.sample)
	if err != nil {
		return OpenResult{}, fmt.Errorf("sample workflow: %w", err)
	}
	return OpenResult{Name: SampleName, Workflow: w, Warnings: nonNil(warnings), File: a.service().FileTrustOf("")}, nil
}

// OpenWorkflow loads the workflow file at path.
func (a *App) OpenWorkflow(path string) (OpenResult, error) {
	if strings.TrimSpace(path) == "" {
		return OpenResult{}, errors.New("open workflow: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return OpenResult{}, fmt.Errorf("open workflow: %w", err)
	}
	w, warnings, err := workflow.Load(abs)
	if err != nil {
		return OpenResult{}, err
	}
	a.rememberDir(abs)
	a.rememberLast(abs)
	return OpenResult{Path: abs, Name: filepath.Base(abs), Workflow: w, Warnings: nonNil(warnings), File: a.service().FileTrustOf(abs)}, nil
}

// OpenWorkflowDialog asks for a file and opens it. A cancelled dialog gives
// an empty result (Workflow nil) and no error.
func (a *App) OpenWorkflowDialog() (OpenResult, error) {
	path, err := a.dialogs.Open(a.context(), runtime.OpenDialogOptions{
		Title:            "Open workflow",
		DefaultDirectory: a.dialogDir(),
		Filters:          workflowFilters,
	})
	if err != nil {
		return OpenResult{}, fmt.Errorf("open dialog: %w", err)
	}
	if path == "" {
		return OpenResult{}, nil
	}
	return a.OpenWorkflow(path)
}

// SaveWorkflow writes w to path atomically. from is the path the
// document was opened from or last saved to ("" for a new one): the
// file's trust carries over from there (service.SaveWorkflow).
func (a *App) SaveWorkflow(path string, w workflow.Workflow, from string) error {
	if strings.TrimSpace(path) == "" {
		return errors.New("save workflow: no path given; use Save As")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("save workflow: %w", err)
	}
	if err := a.service().SaveWorkflow(a.context(), abs, &w, from); err != nil {
		return err
	}
	a.rememberDir(abs)
	a.rememberLast(abs)
	a.recordVersion(&w)
	return nil
}

// recordVersion keeps the saved state as a plan version. It is best effort:
// the file is already safely saved, so a failure here is only logged.
func (a *App) recordVersion(w *workflow.Workflow) {
	if a.versions == nil {
		return
	}
	st, err := a.versions()
	if err == nil {
		_, err = st.Save(w, versions.ReasonManual)
	}
	if err != nil {
		slog.Warn("could not record a version of the saved workflow", "workflow", w.ID, "error", err)
	}
}

// SaveWorkflowAsDialog asks where to save w and saves it there (from as
// SaveWorkflow's). It returns the chosen path, or "" (and no error) when
// the dialog was cancelled.
func (a *App) SaveWorkflowAsDialog(w workflow.Workflow, from string) (string, error) {
	name := workflow.KeyFromName(w.Name) + ".json"
	if w.Name == "" {
		name = "workflow.json"
	}
	path, err := a.dialogs.Save(a.context(), runtime.SaveDialogOptions{
		Title:            "Save workflow as",
		DefaultDirectory: a.dialogDir(),
		DefaultFilename:  name,
		Filters:          workflowFilters,
	})
	if err != nil {
		return "", fmt.Errorf("save dialog: %w", err)
	}
	if path == "" {
		return "", nil
	}
	if filepath.Ext(path) == "" {
		path += ".json"
	}
	if err := a.SaveWorkflow(path, w, from); err != nil {
		return "", err
	}
	return filepath.Abs(path)
}

// ValidateWorkflow checks w against the tool catalog and the names of
// the stored secrets (a reference to one the store lacks is a warning);
// path is its file ("" unsaved), beside which a Workflow node's file is
// looked for.
func (a *App) ValidateWorkflow(w workflow.Workflow, path string) validate.Result {
	var names []string
	if st, err := a.credentials(); err == nil {
		names = service.SecretNames(st)
	}
	dir := ""
	if abs, err := filepath.Abs(path); err == nil && strings.TrimSpace(path) != "" {
		dir = filepath.Dir(abs)
	}
	r := validate.ValidateWith(&w, a.catalog, validate.Options{Secrets: names, Dir: dir})
	if r.Problems == nil {
		r.Problems = []validate.Problem{}
	}
	return r
}

// CheckCondition returns why expr is not a valid condition, or "" if it is.
func (a *App) CheckCondition(expr string) string {
	if err := validate.CheckCondition(expr); err != nil {
		return err.Error()
	}
	return ""
}

// ReferencesAt lists what a text of node nodeID may read (the `{{`
// completion of the Inspector's fields): place is "" for its arguments,
// prompt, input or condition, "verify", "done_when" or "exit_condition"
// (nodeID "" with "done_when": the workflow's own). It asks the rules
// validation reports unknown references by.
func (a *App) ReferencesAt(w workflow.Workflow, nodeID, place string) ([]validate.Reference, error) {
	return validate.References(&w, a.catalog, nodeID, validate.Place(place))
}

// ToolCatalog lists the tools a Tool node can call: the built-ins and
// (run issue: see ToolCatalogFull in app_run.go) the MCP servers' tools.
func (a *App) ToolCatalog() []tools.Tool {
	return a.ToolCatalogFull().Tools
}

// GetSettings loads the settings without the API key.
func (a *App) GetSettings() (SettingsView, error) {
	st, err := a.settingsStore()
	if err != nil {
		return SettingsView{}, err
	}
	s, warnings, err := st.Load()
	if err != nil {
		return SettingsView{}, err
	}
	view := SettingsView{
		APIKeySet:    s.LLM.APIKey != "",
		APIKeyMasked: settings.MaskKey(s.LLM.APIKey),
		Path:         st.Path,
		Warnings:     nonNil(warnings),
	}
	s.LLM.APIKey = ""
	view.Settings = s
	return view, nil
}

// SaveSettings saves s. apiKey nil keeps the stored key; a pointer to ""
// clears it; anything else replaces it. The API key inside s is ignored,
// since GetSettings never sends it.
func (a *App) SaveSettings(s settings.Settings, apiKey *string) ([]string, error) {
	st, err := a.settingsStore()
	if err != nil {
		return nil, err
	}
	if apiKey != nil {
		s.LLM.APIKey = *apiKey
	} else {
		cur, _, err := st.Load()
		if err != nil {
			return nil, err
		}
		s.LLM.APIKey = cur.LLM.APIKey
	}
	warnings, err := st.Save(s)
	return nonNil(warnings), err
}

func (a *App) settingsStore() (*settings.Store, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.store != nil {
		return a.store, nil
	}
	st, err := a.newStore()
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	a.store = st
	return st, nil
}

func (a *App) rememberDir(path string) {
	a.mu.Lock()
	a.lastDir = filepath.Dir(path)
	a.mu.Unlock()
}

func (a *App) dialogDir() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastDir
}

// nonNil makes empty lists reach the frontend as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WorkflowFileTrust is the trust of the workflow file at path ("" for an
// unsaved workflow: trusted, made in Weft), for the editor's banner.
func (a *App) WorkflowFileTrust(path string) service.FileTrust {
	return a.service().FileTrustOf(path)
}
