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

// Start starts a server on 127.0.0.1 at port (0: a free port) with JetStream storing under dir
// (empty: a new temporary directory, removed on Shutdown).
func Start(port int, dir string) (*Server, error) {
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
	srv, err := server.NewServer(&server.Options{
		ServerName: "cardroom-embedded",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   dir,
		NoSigs:     true,
		NoLog:      true,
	})
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
