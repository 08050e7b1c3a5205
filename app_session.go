package main

import (
	"context"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/weft-dev/weft/backend/session"
	"github.com/weft-dev/weft/backend/workflow"
)

// EventCloseRequested asks the frontend whether unsaved changes may be
// discarded; it answers with ConfirmClose or CancelClose.
const EventCloseRequested = "weft:close-requested"

// AutosaveView is the autosave as the frontend sees it. Found is false (and
// the rest empty) when there is none.
type AutosaveView struct {
	Found bool `json:"found"`
	// SavedAt is RFC 3339 in UTC.
	SavedAt  string             `json:"saved_at"`
	Path     string             `json:"path"`
	Name     string             `json:"name"`
	Workflow *workflow.Workflow `json:"workflow"`
	Warnings []string           `json:"warnings"`
}

// RecentFile is one entry of the recent files list.
type RecentFile struct {
	Path string `json:"path"`
	Name string `json:"name"`
	// OpenedAt is RFC 3339 in UTC.
	OpenedAt string `json:"opened_at"`
}

// appSession is the App's session state: the store in the XDG data dir
// (opened on first use) and the window close guard.
type appSession struct {
	once     sync.Once
	store    *session.Store
	err      error
	newStore func() (*session.Store, error)
	guard    session.CloseGuard

	// The Wails runtime calls, replaced in tests (they need a Wails context).
	emit  func(ctx context.Context, event string)
	ask   func(ctx context.Context) bool
	quit  func(ctx context.Context)
	logFn func(ctx context.Context, msg string)
}

func (a *App) sessionStore() (*session.Store, error) {
	s := &a.session
	s.once.Do(func() {
		open := s.newStore
		if open == nil {
			open = session.NewStore
		}
		s.store, s.err = open()
	})
	return s.store, s.err
}

// warn logs a message to the app log (never fatal to the caller).
func (a *App) warn(msg string) {
	if a.session.logFn != nil {
		a.session.logFn(a.context(), msg)
		return
	}
	if a.ctx != nil {
		runtime.LogWarning(a.ctx, msg)
	}
}

// Autosave keeps w (the document of the file at path, or "" when it has
// none; name is its title) so that it can be restored after a crash.
func (a *App) Autosave(w workflow.Workflow, path, name string) error {
	st, err := a.sessionStore()
	if err != nil {
		return err
	}
	return st.Autosave(&w, path, name)
}

// LoadAutosave returns the autosave left by an earlier run, if any.
func (a *App) LoadAutosave() (AutosaveView, error) {
	st, err := a.sessionStore()
	if err != nil {
		return AutosaveView{Warnings: []string{}}, err
	}
	as, warnings, err := st.LoadAutosave()
	v := AutosaveView{Warnings: nonNil(warnings)}
	if err != nil || as == nil {
		return v, err
	}
	v.Found = true
	v.SavedAt = as.SavedAt.UTC().Format(time.RFC3339)
	v.Path, v.Name, v.Workflow = as.Path, as.Name, as.Workflow
	return v, nil
}

// ClearAutosave removes the autosave (after a save, or when the user
// discards the changes).
func (a *App) ClearAutosave() error {
	st, err := a.sessionStore()
	if err != nil {
		return err
	}
	return st.ClearAutosave()
}

func recentView(list []session.Recent) []RecentFile {
	out := make([]RecentFile, 0, len(list))
	for _, r := range list {
		out = append(out, RecentFile{Path: r.Path, Name: r.Name, OpenedAt: r.OpenedAt.UTC().Format(time.RFC3339)})
	}
	return out
}

// RecentFiles lists the recently opened workflow files that still exist,
// newest first. Problems with the list are logged, never returned.
func (a *App) RecentFiles() []RecentFile {
	st, err := a.sessionStore()
	if err != nil {
		a.warn("recent files: " + err.Error())
		return []RecentFile{}
	}
	list, warnings, err := st.Recent()
	for _, w := range warnings {
		a.warn("recent files: " + w)
	}
	if err != nil {
		a.warn("recent files: " + err.Error())
	}
	return recentView(list)
}

// AddRecentFile records that path was opened or saved and returns the list.
func (a *App) AddRecentFile(path string) []RecentFile {
	st, err := a.sessionStore()
	if err != nil {
		a.warn("recent files: " + err.Error())
		return []RecentFile{}
	}
	list, warnings, err := st.AddRecent(path)
	for _, w := range warnings {
		a.warn("recent files: " + w)
	}
	if err != nil {
		a.warn("recent files: " + err.Error())
	}
	return recentView(list)
}

// RemoveRecentFile drops path from the list (it could not be opened).
func (a *App) RemoveRecentFile(path string) []RecentFile {
	st, err := a.sessionStore()
	if err != nil {
		a.warn("recent files: " + err.Error())
		return []RecentFile{}
	}
	list, err := st.RemoveRecent(path)
	if err != nil {
		a.warn("recent files: " + err.Error())
	}
	return recentView(list)
}

// SetDirty tells the backend whether the document has unsaved changes, so
// that closing the window asks first.
func (a *App) SetDirty(dirty bool) { a.session.guard.SetDirty(dirty) }

// ConfirmClose closes the window after the user chose to discard (or has
// saved) their changes.
func (a *App) ConfirmClose() {
	a.session.guard.Allow()
	if a.session.quit != nil {
		a.session.quit(a.context())
		return
	}
	if a.ctx != nil {
		runtime.Quit(a.ctx)
	}
}

// CancelClose records that the user kept the window open.
func (a *App) CancelClose() { a.session.guard.Cancel() }

// beforeClose is the window's OnBeforeClose: true keeps the window open.
func (a *App) beforeClose(ctx context.Context) bool {
	switch a.session.guard.Request() {
	case session.AskFrontend:
		if a.session.emit != nil {
			a.session.emit(ctx, EventCloseRequested)
		} else {
			runtime.EventsEmit(ctx, EventCloseRequested)
		}
		return true
	case session.AskNative:
		discard := false
		if a.session.ask != nil {
			discard = a.session.ask(ctx)
		} else {
			discard = askDiscardNative(ctx)
		}
		if discard {
			a.session.guard.Allow()
			if err := a.ClearAutosave(); err != nil {
				a.warn("close: " + err.Error())
			}
			return false
		}
		return true
	default:
		return false
	}
}

// askDiscardNative asks with the OS dialog when the frontend does not answer.
func askDiscardNative(ctx context.Context) bool {
	answer, err := runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
		Type:          runtime.QuestionDialog,
		Title:         "Discard unsaved changes?",
		Message:       "The workflow has unsaved changes. Close Weft and discard them?",
		Buttons:       []string{"Yes", "No"},
		DefaultButton: "No",
		CancelButton:  "No",
	})
	if err != nil {
		runtime.LogError(ctx, "close dialog: "+err.Error())
		return false
	}
	return answer == "Yes"
}
