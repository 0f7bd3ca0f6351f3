// Package natsembed runs a NATS server with JetStream inside the process: the all-in-one mode of
// `cardroom serve` and the tests use it, so nothing needs installing.
package natsembed

import (
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Server is a running embedded NATS server.
type Server struct {
	srv *server.Server
	dir string
	own bool
}

// An Option changes the server's options.
type Option func(*server.Options)

// SyncAlways has JetStream fsync every write to its files before acknowledging it
// (`sync_interval: always`), instead of every two minutes (docs/operations.md, "Durability").
func SyncAlways() Option { return func(o *server.Options) { o.SyncAlways = true } }

// SyncEvery has JetStream fsync its files every d (`sync_interval: d`; JetStream's default is
// two minutes).
func SyncEvery(d time.Duration) Option { return func(o *server.Options) { o.SyncInterval = d } }

// syncInterval is how often JetStream fsyncs a directory the caller keeps: every second, not
// every two minutes (JetStream's default), so that a machine crash loses at most about a second of
// acknowledged events instead of two minutes' (docs/operations.md, "Durability"; measured in
// BenchmarkStreamSync: no cost within noise, where syncing every write cut a stream's intake to
// about 1,000 messages a second on this disk).
const syncInterval = time.Second

// Start starts a server on 127.0.0.1 at port (0: a free port) with JetStream storing under dir
// (empty: a new temporary directory, removed on Shutdown; a directory the caller gives is synced
// every syncInterval).
func Start(port int, dir string, opts ...Option) (*Server, error) {
	own := false
	if dir == "" {
		d, err := os.MkdirTemp("", "cardroom-nats-")
		if err != nil {
			return nil, fmt.Errorf("nats store dir: %w", err)
		}
		dir, own = d, true
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	o := &server.Options{
		ServerName: "cardroom-embedded",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      true,
	}
	if !own {
		o.SyncInterval = syncInterval
	}
	for _, opt := range opts {
		opt(o)
	}
	srv, err := server.NewServer(o)
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("nats server not ready")
	}
	return &Server{srv: srv, dir: dir, own: own}, nil
}

// InProcess lets a client of this process connect through memory (nats.InProcessServer).
func (s *Server) InProcess() nats.InProcessConnProvider { return s.srv }

// URL is the client URL.
func (s *Server) URL() string { return s.srv.ClientURL() }

// Shutdown stops the server and removes its temporary directory.
func (s *Server) Shutdown() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
	if s.own {
		_ = os.RemoveAll(s.dir)
	}
}
