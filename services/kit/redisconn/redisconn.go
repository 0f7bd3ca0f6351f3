// Package redisconn opens a Redis client from one URL whose scheme selects the deployment:
//
//	redis://[user:password@]host:port[/db][?options]            one server
//	rediss://...                                                 the same over TLS
//	redis+sentinel://[user:password@]sentinel:port[/db]?master_name=NAME[&addr=sentinel2:port...][&options]
//	                                                             a primary found through Sentinel
//	redis+cluster://[user:password@]node:port[?addr=node2:port...][&options]
//	                                                             a Redis Cluster, from one or more seed nodes
//
// and rediss+sentinel:// and rediss+cluster:// over TLS. The options are go-redis's, in snake
// case (dial_timeout=3s, pool_size=50, max_retries=5...), and cardroom's own:
//
//	wait_replicas=N   a write that answers a client is confirmed by N replicas (WAIT) before its
//	                  answer; default 0, no wait
//	wait_timeout=D    how long it waits for them (a Go duration; default 1s), less than read_timeout
//
// In a Sentinel URL the user and password are the Sentinel's; the data nodes' go in the username
// and password options. Every form yields a redis.UniversalClient.
package redisconn

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultWaitTimeout is how long a write waits for its replicas when the URL sets wait_replicas
// but not wait_timeout.
const DefaultWaitTimeout = time.Second

// Wait is what a write waits for before it is answered: Replicas replicas to have it, for up to
// Timeout (Replicas 0: none).
type Wait struct {
	Replicas int
	Timeout  time.Duration
}

// Kind is the deployment a URL selects.
type Kind string

const (
	Single   Kind = "single"
	Sentinel Kind = "sentinel"
	Cluster  Kind = "cluster"
)

// Options is what a URL says: its kind, and the options of a client of that kind.
type Options struct {
	Kind Kind
	// Addrs are the server, Sentinel or seed node addresses.
	Addrs []string
	// One of these is set, by Kind.
	Single   *redis.Options
	Sentinel *redis.FailoverOptions
	Cluster  *redis.ClusterOptions
	// Wait is the URL's wait_replicas and wait_timeout.
	Wait Wait
}

// Parse reads a URL of one of the package's forms. Retries are go-redis's unless the URL sets
// them (the services add their own, see services/kit/app).
func Parse(rawURL string) (Options, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return Options{}, fmt.Errorf("redis url: %w", err)
	}
	base, kind, _ := strings.Cut(u.Scheme, "+")
	if base != "redis" && base != "rediss" {
		return Options{}, fmt.Errorf("redis url: scheme %q, want redis, rediss, redis+sentinel or redis+cluster", u.Scheme)
	}
	wait, err := takeWait(u)
	if err != nil {
		return Options{}, err
	}
	plain := *u
	plain.Scheme = base
	var o Options
	switch kind {
	case "":
		opt, err := redis.ParseURL(plain.String())
		if err != nil {
			return Options{}, fmt.Errorf("redis url: %w", err)
		}
		o = Options{Kind: Single, Addrs: []string{opt.Addr}, Single: opt}
	case "sentinel":
		opt, err := redis.ParseFailoverURL(plain.String())
		if err != nil {
			return Options{}, fmt.Errorf("redis sentinel url: %w", err)
		}
		if opt.MasterName == "" {
			return Options{}, fmt.Errorf("redis sentinel url: master_name is required")
		}
		o = Options{Kind: Sentinel, Addrs: opt.SentinelAddrs, Sentinel: opt}
	case "cluster":
		if p := strings.Trim(u.Path, "/"); p != "" && p != "0" {
			return Options{}, fmt.Errorf("redis cluster url: database %q: a cluster has only database 0", p)
		}
		plain.Path = ""
		opt, err := redis.ParseClusterURL(plain.String())
		if err != nil {
			return Options{}, fmt.Errorf("redis cluster url: %w", err)
		}
		o = Options{Kind: Cluster, Addrs: opt.Addrs, Cluster: opt}
	default:
		return Options{}, fmt.Errorf("redis url: scheme %q, want redis, rediss, redis+sentinel or redis+cluster", u.Scheme)
	}
	if wait.Replicas > 0 {
		read := 3 * time.Second // go-redis's default read timeout
		switch {
		case o.Single != nil && o.Single.ReadTimeout != 0:
			read = o.Single.ReadTimeout
		case o.Sentinel != nil && o.Sentinel.ReadTimeout != 0:
			read = o.Sentinel.ReadTimeout
		case o.Cluster != nil && o.Cluster.ReadTimeout != 0:
			read = o.Cluster.ReadTimeout
		}
		if read > 0 && wait.Timeout >= read {
			return Options{}, fmt.Errorf("redis url: wait_timeout %s must be shorter than the read timeout %s", wait.Timeout, read)
		}
	}
	o.Wait = wait
	return o, nil
}

// takeWait reads wait_replicas and wait_timeout from u's query and removes them from it (go-redis
// refuses options it does not know).
func takeWait(u *url.URL) (Wait, error) {
	q := u.Query()
	w := Wait{Timeout: DefaultWaitTimeout}
	if v := q.Get("wait_replicas"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return Wait{}, fmt.Errorf("redis url: wait_replicas %q, want a number of replicas (0 or more)", v)
		}
		w.Replicas = n
	}
	if v := q.Get("wait_timeout"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Millisecond {
			return Wait{}, fmt.Errorf("redis url: wait_timeout %q, want a duration of 1ms or more", v)
		}
		w.Timeout = d
	}
	if q.Has("wait_replicas") || q.Has("wait_timeout") {
		q.Del("wait_replicas")
		q.Del("wait_timeout")
		u.RawQuery = q.Encode()
	}
	return w, nil
}

// Client returns a new client for o, which does not check its pooled connections before each
// command (SkipConnCheck).
func (o Options) Client() redis.UniversalClient {
	var c redis.UniversalClient
	switch o.Kind {
	case Sentinel:
		c = redis.NewFailoverClient(o.Sentinel)
	case Cluster:
		c = redis.NewClusterClient(o.Cluster)
	default:
		c = redis.NewClient(o.Single)
	}
	SkipConnCheck(c)
	return c
}

// Open parses rawURL and returns a client for it (not yet connected).
func Open(rawURL string) (redis.UniversalClient, Options, error) {
	o, err := Parse(rawURL)
	if err != nil {
		return nil, Options{}, err
	}
	return o.Client(), o, nil
}
