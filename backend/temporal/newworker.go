package temporal

import (
	"go.temporal.io/sdk/worker"
)

// NewWorker is a worker running acts for eng's runs: it polls the queue
// eng submits to (Config.Queue: the sealed queue of its key, when it has
// one, and only that: its codec refuses unsealed payloads). eng.Client
// must be dialed with eng.Config (Dial), whose key opens the payloads.
func NewWorker(eng *Engine, acts *Activities) worker.Worker {
	q := eng.Config.Queue()
	if l := eng.Config.Logger; l != nil {
		sealed := eng.Config.Key != nil
		l.Info("temporal worker: polling", "task_queue", q, "namespace", eng.Config.Namespace, "sealed", sealed)
	}
	w := worker.New(eng.Client, q, worker.Options{})
	Register(w, acts)
	return w
}
