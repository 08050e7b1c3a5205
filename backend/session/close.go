package session

import (
	"sync"
	"time"
)

// CloseDecision is what to do when the user closes the window.
type CloseDecision int

const (
	// CloseNow: nothing unsaved, or the user already agreed to discard it.
	CloseNow CloseDecision = iota
	// AskFrontend: keep the window open and let the frontend ask (Save /
	// Don't save / Cancel); it answers with Allow or Cancel.
	AskFrontend
	// AskNative: an earlier request got no answer within Patience (a hung
	// or broken frontend), so ask with a native dialog instead, and never
	// leave the user unable to close the window.
	AskNative
)

// DefaultPatience is how long a close request waits for the frontend.
const DefaultPatience = 4 * time.Second

// CloseGuard decides whether the window may close. The frontend reports
// whether the document has unsaved changes (SetDirty); the window's close
// request asks Request.
type CloseGuard struct {
	Now      func() time.Time
	Patience time.Duration

	mu      sync.Mutex
	dirty   bool
	allowed bool
	asked   time.Time // when the frontend was asked; zero when no request waits
}

func (g *CloseGuard) now() time.Time {
	if g.Now != nil {
		return g.Now()
	}
	return time.Now()
}

// SetDirty records whether the open document has unsaved changes.
func (g *CloseGuard) SetDirty(dirty bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dirty = dirty
}

// Dirty reports the last state SetDirty recorded.
func (g *CloseGuard) Dirty() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dirty
}

// Allow lets the next close go through: the user chose to discard (or has
// saved) their changes.
func (g *CloseGuard) Allow() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.allowed = true
	g.asked = time.Time{}
}

// Cancel records that the user chose to keep the window open.
func (g *CloseGuard) Cancel() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked = time.Time{}
}

// Request decides what a close request does.
func (g *CloseGuard) Request() CloseDecision {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.allowed || !g.dirty {
		return CloseNow
	}
	now := g.now()
	patience := g.Patience
	if patience <= 0 {
		patience = DefaultPatience
	}
	if !g.asked.IsZero() && now.Sub(g.asked) >= patience {
		g.asked = time.Time{}
		return AskNative
	}
	if g.asked.IsZero() {
		g.asked = now
	}
	return AskFrontend
}
