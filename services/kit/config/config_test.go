package config

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	env := map[string]string{"CARDROOM_REDIS_URL": "redis://:secret@10.0.0.1:6379/0", "CARDROOM_RETENTION": "2h"}
	c, err := Parse("x", []string{"--retention", "3h", "--listen", ":9000"}, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.Retention != 3*time.Hour || c.Listen != ":9000" || c.RedisURL != env["CARDROOM_REDIS_URL"] || c.LogLevel != "info" {
		t.Fatalf("parsed %+v", c)
	}
	if strings.Contains(c.LogValue().String(), "secret") {
		t.Fatal("the logged configuration shows a password")
	}
	if c.NATSPrefix != "cardroom" {
		t.Errorf("default NATS prefix %q", c.NATSPrefix)
	}
	if c, err := Parse("x", []string{"--nats-prefix", "blue"}, func(string) string { return "" }); err != nil || c.NATSPrefix != "blue" {
		t.Errorf("--nats-prefix blue: %q, %v", c.NATSPrefix, err)
	}
	if c.NATSReplicas != 1 {
		t.Errorf("default NATS replicas %d", c.NATSReplicas)
	}
	cluster := "nats://u:secret@n0:4222, nats://u:secret@n1:4222,nats://n2:4222"
	if c, err := Parse("x", []string{"--nats-url", cluster, "--nats-replicas", "3"}, func(string) string { return "" }); err != nil || c.NATSReplicas != 3 {
		t.Errorf("--nats-replicas 3: %d, %v", c.NATSReplicas, err)
	} else if logged := c.LogValue().String(); strings.Contains(logged, "secret") || !strings.Contains(logged, "n2:4222") {
		t.Errorf("the logged configuration of a NATS cluster: %s", logged)
	}
	for _, bad := range [][]string{{"--retention", "soon"}, {"--log-level", "loud"}, {"extra"}, {"--nats-prefix", "Blue"}, {"--nats-prefix", "a.b"}, {"--nats-prefix", ""},
		{"--nats-url", "nats://n0:4222", "--nats-replicas", "0"}, {"--nats-url", "nats://n0:4222", "--nats-replicas", "6"}, {"--nats-replicas", "3"}} {
		if _, err := Parse("x", bad, func(string) string { return "" }); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	if _, err := Parse("x", nil, func(k string) string {
		if k == "CARDROOM_RETENTION" {
			return "-1h"
		}
		return ""
	}); err == nil {
		t.Error("a negative retention from the environment was accepted")
	}
}

// TestDocumented: the configuration reference in docs/operations.md lists every setting.
func TestDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range settings {
		if !strings.Contains(string(doc), "`"+s.env+"`") {
			t.Errorf("docs/operations.md does not document %s", s.env)
		}
	}
}
