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
// case (dial_timeout=3s, pool_size=50, max_retries=5...). In a Sentinel URL the user and password
// are the Sentinel's; the data nodes' go in the username and password options. Every form yields a
// redis.UniversalClient.
package redisconn

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

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
	return o, nil
}

// Client returns a new client for o.
func (o Options) Client() redis.UniversalClient {
	switch o.Kind {
	case Sentinel:
		return redis.NewFailoverClient(o.Sentinel)
	case Cluster:
		return redis.NewClusterClient(o.Cluster)
	default:
		return redis.NewClient(o.Single)
	}
}

// Open parses rawURL and returns a client for it (not yet connected).
func Open(rawURL string) (redis.UniversalClient, Options, error) {
	o, err := Parse(rawURL)
	if err != nil {
		return nil, Options{}, err
	}
	return o.Client(), o, nil
}
