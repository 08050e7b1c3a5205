package mcpserve

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/weft-dev/weft/backend/runner"
)

// answerWait bounds how long a run waits for a client to call again with
// its answer (multi round-trip): then it is aborted.
const answerWait = 10 * time.Minute

// park keeps c, whose client is asked in its call's result, until it calls
// again with the returned requestState (unguessable) or answerWait passes.
func (s *Server) park(c *call) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	state := hex.EncodeToString(b[:])
	s.mu.Lock()
	if s.parked == nil {
		s.parked = map[string]*call{}
	}
	s.parked[state] = c
	s.mu.Unlock()
	time.AfterFunc(answerWait, func() {
		if c := s.resume(state); c != nil {
			// The run ends; its last events fill the call's buffers.
			_ = s.svc.Respond(c.escID, runner.Response{Action: runner.ActAbort})
		}
	})
	return state
}

// resume takes back the call parked as state, or nil.
func (s *Server) resume(state string) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.parked[state]
	delete(s.parked, state)
	return c
}
