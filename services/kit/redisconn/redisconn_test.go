package redisconn_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"cardroom.dev/services/kit/redisconn"
	"github.com/redis/go-redis/v9"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		url     string
		kind    redisconn.Kind
		addrs   []string
		retries int
		backoff time.Duration
	}{
		{"redis://127.0.0.1:6379/0", redisconn.Single, []string{"127.0.0.1:6379"}, 0, 0},
		{"redis://127.0.0.1:6379/0?max_retries=2", redisconn.Single, []string{"127.0.0.1:6379"}, 2, 0},
		{"rediss://u:p@r.example:6380/2?max_retries=5&max_retry_backoff=1s", redisconn.Single, []string{"r.example:6380"}, 5, time.Second},
		{"redis+sentinel://s1:26379?addr=s2:26379&addr=s3:26379&master_name=main", redisconn.Sentinel, []string{"s1:26379", "s2:26379", "s3:26379"}, 0, 0},
		{"redis+cluster://n1:7000?addr=n2:7000&addr=n3:7000&max_retries=3", redisconn.Cluster, []string{"n1:7000", "n2:7000", "n3:7000"}, 3, 0},
		{"rediss+cluster://user:pw@n1:7000/?max_retry_backoff=2s", redisconn.Cluster, []string{"n1:7000"}, 0, 2 * time.Second},
	} {
		o, err := redisconn.Parse(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if o.Kind != c.kind || !slices.Equal(o.Addrs, c.addrs) {
			t.Errorf("%s: %s %v, want %s %v", c.url, o.Kind, o.Addrs, c.kind, c.addrs)
		}
		var retries int
		var backoff time.Duration
		switch c.kind {
		case redisconn.Single:
			retries, backoff = o.Single.MaxRetries, o.Single.MaxRetryBackoff
		case redisconn.Sentinel:
			retries, backoff = o.Sentinel.MaxRetries, o.Sentinel.MaxRetryBackoff
		case redisconn.Cluster:
			retries, backoff = o.Cluster.MaxRetries, o.Cluster.MaxRetryBackoff
		}
		if retries != c.retries || backoff != c.backoff {
			t.Errorf("%s: %d retries, backoff %v; want %d, %v", c.url, retries, backoff, c.retries, c.backoff)
		}
		cl := o.Client()
		switch cl.(type) {
		case *redis.Client:
			if c.kind != redisconn.Single && c.kind != redisconn.Sentinel {
				t.Errorf("%s: a single-server client", c.url)
			}
		case *redis.ClusterClient:
			if c.kind != redisconn.Cluster {
				t.Errorf("%s: a cluster client", c.url)
			}
		}
		_ = cl.Close()
	}
}

func TestParseRejects(t *testing.T) {
	for _, u := range []string{
		"http://127.0.0.1:6379",
		"redis+sharded://127.0.0.1:6379",
		"redis+sentinel://s1:26379",         // no master name
		"redis+cluster://n1:7000/3",         // a cluster has database 0 only
		"redis+cluster://n1:7000?bogus=1",   // unknown option
		"redis://127.0.0.1:6379/notanumber", // bad database
		"redis://127.0.0.1:6379/0?wait_replicas=-1",
		"redis://127.0.0.1:6379/0?wait_replicas=one",
		"redis://127.0.0.1:6379/0?wait_replicas=1&wait_timeout=soon",
		"redis://127.0.0.1:6379/0?wait_replicas=1&wait_timeout=3s",                      // not under the read timeout
		"redis+cluster://n1:7000?wait_replicas=1&wait_timeout=600ms&read_timeout=500ms", // same
	} {
		if _, err := redisconn.Parse(u); err == nil {
			t.Errorf("%s: accepted", u)
		}
	}
}

// TestParseWait reads cardroom's wait_replicas and wait_timeout, which go-redis does not know, in
// every form, leaving the other options to go-redis.
func TestParseWait(t *testing.T) {
	for _, c := range []struct {
		url  string
		want redisconn.Wait
	}{
		{"redis://127.0.0.1:6379/0", redisconn.Wait{Timeout: redisconn.DefaultWaitTimeout}},
		{"redis://127.0.0.1:6379/0?wait_replicas=1", redisconn.Wait{Replicas: 1, Timeout: time.Second}},
		{"redis://127.0.0.1:6379/0?pool_size=7&wait_replicas=2&wait_timeout=250ms", redisconn.Wait{Replicas: 2, Timeout: 250 * time.Millisecond}},
		{"redis+sentinel://s1:26379?master_name=main&wait_replicas=1&wait_timeout=2s", redisconn.Wait{Replicas: 1, Timeout: 2 * time.Second}},
		{"redis+cluster://n1:7000?addr=n2:7000&wait_replicas=1&wait_timeout=500ms&max_retries=3", redisconn.Wait{Replicas: 1, Timeout: 500 * time.Millisecond}},
	} {
		o, err := redisconn.Parse(c.url)
		if err != nil {
			t.Fatalf("%s: %v", c.url, err)
		}
		if o.Wait != c.want {
			t.Errorf("%s: wait %+v, want %+v", c.url, o.Wait, c.want)
		}
		switch o.Kind {
		case redisconn.Single:
			if strings.Contains(c.url, "pool_size=7") && o.Single.PoolSize != 7 {
				t.Errorf("%s: pool size %d, want 7", c.url, o.Single.PoolSize)
			}
		case redisconn.Cluster:
			if o.Cluster.MaxRetries != 3 || !slices.Equal(o.Addrs, []string{"n1:7000", "n2:7000"}) {
				t.Errorf("%s: %d retries, nodes %v", c.url, o.Cluster.MaxRetries, o.Addrs)
			}
		}
	}
}
