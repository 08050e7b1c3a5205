// Package devserver runs a real Temporal server in-process, on SQLite
// (a file that survives restarts, or memory), for one machine
// (cmd/weft-temporal-dev). Weft's Temporal tests live here too, on it and
// on go.temporal.io/server/temporaltest. It is its own Go module: the
// server's dependency tree (about 2 GB) stays out of the app's go.mod and
// binary.
package devserver

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/membership/static"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	"go.temporal.io/server/common/primitives"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

// Namespace is the one namespace the server has, registered when it
// starts: Weft's own default (`--namespace default`), so workers and
// clients need no flag for it.
const Namespace = "default"

// host is where every service listens: this machine only.
const host = "127.0.0.1"

// clusterName names the single cluster. It is stored in the database, so
// it must stay the same from one version of this program to the next.
const clusterName = "active"

// Options says how to run the server.
type Options struct {
	// Port is the frontend's port on 127.0.0.1; 0 picks a free one.
	Port int
	// DB is the SQLite file the server keeps its state in (made, with
	// its schema, on the first start); "" keeps it in memory, lost when
	// the server stops.
	DB string
	// Logger receives the server's own log; nil discards it.
	Logger log.Logger
}

// Server is a running server.
type Server struct {
	srv  temporal.Server
	addr string
}

// Start starts a server: the frontend on 127.0.0.1:Port, history,
// matching and the internal worker on free ports of 127.0.0.1, the
// namespace Namespace registered. It returns once the server is up.
func Start(o Options) (*Server, error) {
	if o.Port < 0 || o.Port > 65535 {
		return nil, fmt.Errorf("port %d: not between 0 and 65535", o.Port)
	}
	if o.Logger == nil {
		o.Logger = log.NewNoopLogger()
	}
	sqlConf, err := database(o.DB)
	if err != nil {
		return nil, err
	}
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, Namespace, false, nil)
	if err != nil {
		return nil, fmt.Errorf("namespace %s: %w", Namespace, err)
	}
	if err := sqliteschema.CreateNamespaces(sqlConf, ns); err != nil { // no-op when it exists
		return nil, fmt.Errorf("register namespace %s in %s: %w", Namespace, where(o.DB), err)
	}

	// Free ports for the services other than the frontend, all chosen
	// before any is released so that no two are the same.
	ports, err := freePorts(4)
	if err != nil {
		return nil, err
	}
	if o.Port != 0 {
		// The server ends the process when it cannot listen: say so
		// before, as an error.
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(o.Port)))
		if err != nil {
			return nil, fmt.Errorf("port %d: %w", o.Port, err)
		}
		l.Close()
		ports[0] = o.Port
	}
	names := []primitives.ServiceName{primitives.FrontendService, primitives.HistoryService, primitives.MatchingService, primitives.WorkerService}
	services := map[string]config.Service{}
	hosts := map[primitives.ServiceName]static.Hosts{}
	for i, name := range names {
		services[string(name)] = config.Service{RPC: config.RPC{GRPCPort: ports[i], BindOnIP: host}}
		// Static hosts: no membership ring, so a restart after a crash
		// does not wait for the dead process's members to time out.
		hosts[name] = static.SingleLocalHost(net.JoinHostPort(host, strconv.Itoa(ports[i])))
	}
	addr := net.JoinHostPort(host, strconv.Itoa(ports[0]))

	conf := &config.Config{
		Global: config.Global{Membership: config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: host}},
		Persistence: config.Persistence{
			DefaultStore:     "sqlite",
			VisibilityStore:  "sqlite",
			NumHistoryShards: 1,
			DataStores:       map[string]config.DataStore{"sqlite": {SQL: sqlConf}},
		},
		ClusterMetadata: &cluster.Config{
			FailoverVersionIncrement: 10,
			MasterClusterName:        clusterName,
			CurrentClusterName:       clusterName,
			ClusterInformation: map[string]cluster.ClusterInformation{
				clusterName: {Enabled: true, InitialFailoverVersion: 1, RPCAddress: addr},
			},
		},
		DCRedirectionPolicy: config.DCRedirectionPolicy{Policy: "noop"},
		Services:            services,
		Archival: config.Archival{
			History:    config.HistoryArchival{State: "disabled"},
			Visibility: config.VisibilityArchival{State: "disabled"},
		},
		NamespaceDefaults: config.NamespaceDefaults{Archival: config.ArchivalNamespaceDefaults{
			History:    config.HistoryArchivalNamespaceDefaults{State: "disabled"},
			Visibility: config.VisibilityArchivalNamespaceDefaults{State: "disabled"},
		}},
		PublicClient: config.PublicClient{HostPort: addr},
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(conf),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(o.Logger),
	)
	if err != nil {
		return nil, fmt.Errorf("temporal server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("start the temporal server on %s: %w", addr, err)
	}
	return &Server{srv: srv, addr: addr}, nil
}

// Address is the frontend's HOST:PORT, for --temporal-address.
func (s *Server) Address() string { return s.addr }

// Stop stops the server; what it stored in its file stays there.
func (s *Server) Stop() error { return s.srv.Stop() }

// where names the database for messages.
func where(db string) string {
	if db == "" {
		return "the in-memory database"
	}
	return db
}

// database is the SQLite configuration for file (or memory when file is
// ""). A file that does not exist yet is made with the server's schema.
func database(file string) (*config.SQL, error) {
	if file == "" {
		// A shared in-memory database, named at random so that two
		// servers in one process do not share it.
		return &config.SQL{
			PluginName:        sqliteplugin.PluginName,
			DatabaseName:      "weft-" + strconv.FormatUint(rand.Uint64(), 36),
			ConnectAttributes: map[string]string{"mode": "memory", "cache": "shared"},
		}, nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, fmt.Errorf("database %q: %w", file, err)
	}
	// The plugin puts the path in a "file:PATH?…" URI, where these
	// characters would change its meaning.
	if strings.ContainsAny(abs, "?#%") {
		return nil, fmt.Errorf("database %q: the path cannot contain ?, # or %%", abs)
	}
	conf := func(name string) *config.SQL {
		return &config.SQL{PluginName: sqliteplugin.PluginName, DatabaseName: name, ConnectAttributes: map[string]string{"mode": "rwc"}}
	}
	switch fi, err := os.Stat(abs); {
	case err == nil && fi.Mode().IsRegular():
		return conf(abs), nil
	case err == nil:
		return nil, fmt.Errorf("database %s: not a regular file", abs)
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("database: %w", err)
	}
	if err := createDatabase(abs, conf); err != nil {
		return nil, fmt.Errorf("create the database %s: %w", abs, err)
	}
	return conf(abs), nil
}

// createDatabase makes the file with the server's schema. The schema is
// written to a temporary file in the same folder, renamed into place once
// complete: a start interrupted half-way leaves no half-made database
// that later starts would take for a whole one. The file is readable by
// its owner only: it holds the runs' histories.
func createDatabase(abs string, conf func(string) *config.SQL) error {
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(abs)+".new-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // after the rename, there is nothing left to remove
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := sqliteschema.SetupSchema(conf(name)); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return os.Rename(name, abs)
}

// freePorts picks n distinct free TCP ports of 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ports []int
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
