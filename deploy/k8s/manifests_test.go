package k8s_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestOverlaysMeetTheRules(t *testing.T) {
	for _, overlay := range overlays {
		t.Run(overlay, func(t *testing.T) {
			o := load(t, overlay)
			if len(o.deployments) != 6 {
				t.Errorf("%d Deployments, want 6 (gateway, four rules services, stats)", len(o.deployments))
			}
			for _, p := range audit(o) {
				t.Error(p)
			}
		})
	}
}

// TestProdScalingAsDocumented: prod's autoscalers' bounds are the ones docs/deploy.md gives (its
// scaling paragraph and its sizing table).
func TestProdScalingAsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	o := load(t, "prod")
	bounds := map[string]string{}
	for _, h := range o.hpas {
		bounds[h.Name] = fmt.Sprintf("%d–%d", ptr.Deref(h.Spec.MinReplicas, 1), h.Spec.MaxReplicas)
	}
	want := func(re string) string {
		m := regexp.MustCompile(re).FindStringSubmatch(string(doc))
		if m == nil {
			t.Fatalf("docs/deploy.md has no %q", re)
		}
		return m[1]
	}
	gateway := want(`\| gateway \|[^\n]*\(HPA (\d+–\d+)\)`)
	rules := want(`\| rules, four games \|[^\n]*\(HPA (\d+–\d+) each\)`)
	prod := want(`prod (\d+–\d+) \(gateway`)
	prodGateway := want(`prod \d+–\d+ \(gateway (\d+–\d+)[,)]`)
	for name, b := range bounds {
		switch {
		case name == "gateway" && (b != gateway || b != prodGateway):
			t.Errorf("prod HPA gateway %s; docs/deploy.md: %s (sizing), %s (scaling)", b, gateway, prodGateway)
		case name != "gateway" && (b != rules || b != prod):
			t.Errorf("prod HPA %s %s; docs/deploy.md: %s (sizing), %s (scaling)", name, b, rules, prod)
		}
	}
}

// Each rule of audit catches a manifest that breaks it: every mutation below is one mistake,
// and audit must name it.
func TestAuditCatchesEachMistake(t *testing.T) {
	dep := func(o *objects, name string) *appsv1.Deployment {
		d := deploymentNamed(o, name)
		if d == nil {
			t.Fatalf("%s: no Deployment %s", o.overlay, name)
		}
		return d
	}
	ctr := func(o *objects, name string) *corev1.Container { return &dep(o, name).Spec.Template.Spec.Containers[0] }
	cases := []struct {
		name, overlay, want string
		breakIt             func(o *objects)
	}{
		{"http readiness probe", "dev", "readiness probe is not gRPC", func(o *objects) {
			c := ctr(o, "sponsio-rules")
			c.ReadinessProbe.GRPC = nil
			c.ReadinessProbe.HTTPGet = &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(9464)}
		}},
		{"no liveness probe", "prod", "no liveness probe", func(o *objects) { ctr(o, "gateway").LivenessProbe = nil }},
		{"trusted proxies with the port open to anywhere", "prod", "admits its ports from anywhere", func(o *objects) {
			for _, np := range o.netpols {
				if np.Name == "gateway" {
					np.Spec.Ingress[0].From = nil
				}
			}
		}},
		{"probe on another port", "dev", "readiness probe on port 9464", func(o *objects) { ctr(o, "stats").ReadinessProbe.GRPC.Port = 9464 }},
		{"readiness asks for the wrong service", "dev", "does not ask for cardroom.rules.v1.RulesService", func(o *objects) {
			ctr(o, "saboteur-rules").ReadinessProbe.GRPC.Service = ptr.To("")
		}},
		{"no memory limit", "prod", "no memory limit", func(o *objects) { delete(ctr(o, "stats").Resources.Limits, corev1.ResourceMemory) }},
		{"no cpu request", "dev", "no cpu request", func(o *objects) { delete(ctr(o, "gateway").Resources.Requests, corev1.ResourceCPU) }},
		{"root", "dev", "not runAsNonRoot", func(o *objects) {
			dep(o, "gateway").Spec.Template.Spec.SecurityContext.RunAsNonRoot = ptr.To(false)
		}},
		{"root in a StatefulSet", "dev", "StatefulSet redis container redis: not runAsNonRoot", func(o *objects) {
			o.statefulSets[0].Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil
			o.statefulSets[1].Spec.Template.Spec.SecurityContext.RunAsNonRoot = nil
		}},
		{"writable root", "prod", "root filesystem not read-only", func(o *objects) {
			ctr(o, "sapotagem-rules").SecurityContext.ReadOnlyRootFilesystem = ptr.To(false)
		}},
		{"capability kept", "dev", "capabilities not all dropped", func(o *objects) {
			ctr(o, "sabaisabai-rules").SecurityContext.Capabilities.Drop = []corev1.Capability{"NET_RAW"}
		}},
		{"capability added", "dev", "capabilities not all dropped", func(o *objects) {
			ctr(o, "stats").SecurityContext.Capabilities.Add = []corev1.Capability{"NET_BIND_SERVICE"}
		}},
		{"default service account", "dev", "no ServiceAccount of its own", func(o *objects) {
			dep(o, "stats").Spec.Template.Spec.ServiceAccountName = ""
		}},
		{"shared service account", "prod", "shares ServiceAccount gateway", func(o *objects) {
			dep(o, "stats").Spec.Template.Spec.ServiceAccountName = "gateway"
		}},
		{"service account missing", "dev", "ServiceAccount sponsio-rules does not exist", func(o *objects) {
			o.serviceAccounts = drop(o.serviceAccounts, func(s *corev1.ServiceAccount) bool { return s.Name == "sponsio-rules" })
		}},
		{"routed service missing", "prod", "routes to saboteur-rules, no such Service", func(o *objects) {
			o.services = drop(o.services, func(s *corev1.Service) bool { return s.Name == "saboteur-rules" })
		}},
		{"routed service not headless", "dev", "not headless", func(o *objects) {
			for _, s := range o.services {
				if s.Name == "sponsio-rules" {
					s.Spec.ClusterIP = ""
				}
			}
		}},
		{"a game not routed", "dev", "no route to the sabaisabai rules service", func(o *objects) {
			for _, m := range o.configMaps {
				if v, ok := m.Data["CARDROOM_RULES_TARGETS"]; ok {
					m.Data["CARDROOM_RULES_TARGETS"] = strings.Replace(v, "sabaisabai=dns:///sabaisabai-rules:7070,", "", 1)
				}
			}
		}},
		{"route to a wrong port", "prod", "reaches no pod port", func(o *objects) {
			for _, m := range o.configMaps {
				if v, ok := m.Data["CARDROOM_RULES_TARGETS"]; ok {
					m.Data["CARDROOM_RULES_TARGETS"] = strings.Replace(v, "sponsio-rules:7070", "sponsio-rules:7071", 1)
				}
			}
		}},
		{"latest image", "dev", "has no fixed tag", func(o *objects) { ctr(o, "gateway").Image = "cardroom/gateway:latest" }},
		{"untagged image", "prod", "has no fixed tag", func(o *objects) { ctr(o, "stats").Image = "registry:5000/cardroom/stats" }},
		{"untagged dependency image", "dev", "image \"nats\" has no fixed tag", func(o *objects) {
			for _, s := range o.statefulSets {
				s.Spec.Template.Spec.Containers[0].Image = s.Name
			}
		}},
		{"session key in plain text", "prod", "CARDROOM_SESSION_KEY does not come from a Secret", func(o *objects) {
			c := ctr(o, "gateway")
			for i := range c.Env {
				if c.Env[i].Name == "CARDROOM_SESSION_KEY" {
					c.Env[i].ValueFrom, c.Env[i].Value = nil, "hunter2"
				}
			}
		}},
		{"autoscaler of nothing", "dev", "which does not exist", func(o *objects) { o.hpas[0].Spec.ScaleTargetRef.Name = "gatewya" }},
		{"missing config map", "dev", "ConfigMap", func(o *objects) { o.configMaps = nil }},
		{"missing secret", "dev", "Secret gateway-session", func(o *objects) { o.secrets = nil }},
		{"prod with two replicas", "prod", "runs at least 2 replicas, want 3", func(o *objects) {
			for _, h := range o.hpas {
				if h.Spec.ScaleTargetRef.Name == "sapotagem-rules" {
					h.Spec.MinReplicas = ptr.To[int32](2)
				}
			}
		}},
		{"liveness on readiness", "dev", "liveness probe asks for cardroom.gateway.v1.GatewayService", func(o *objects) {
			ctr(o, "gateway").LivenessProbe.GRPC.Service = ptr.To("cardroom.gateway.v1.GatewayService")
		}},
		{"an image not built here", "prod", "is none of those make images builds", func(o *objects) { ctr(o, "sponsio-rules").Image = "cardroom/sponsio-rules:0.1.0" }},
		{"prod credentials in a ConfigMap", "prod", "CARDROOM_REDIS_URL does not come from a Secret", func(o *objects) {
			c := ctr(o, "stats")
			c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "CARDROOM_REDIS_URL" })
			for _, m := range o.configMaps {
				if strings.HasPrefix(m.Name, "cardroom-config") {
					m.Data["CARDROOM_REDIS_URL"] = "redis://:hunter2@redis:6379/0"
				}
			}
		}},
		{"prod without the CA", "prod", "no CA bundle mounted", func(o *objects) { ctr(o, "gateway").VolumeMounts = nil }},
		{"prod gRPC-Web in plain text", "prod", "no Ingress takes gRPC-Web", func(o *objects) {
			for _, in := range o.ingresses {
				if in.Name == "gateway-web" {
					in.Spec.TLS = nil
				}
			}
		}},
		{"prod without gRPC ingress", "prod", "no Ingress takes native gRPC", func(o *objects) { o.ingresses = o.ingresses[1:] }},
		{"replicas under an autoscaler", "prod", "sets replicas (3) under HPA gateway", func(o *objects) { dep(o, "gateway").Spec.Replicas = ptr.To[int32](3) }},
		{"budget on a single replica", "prod", "on a single replica protects nothing", func(o *objects) {
			o.pdbs = append(o.pdbs, &policyv1.PodDisruptionBudget{Spec: policyv1.PodDisruptionBudgetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "stats"}},
			}})
		}},
		{"nats fsyncs lazily", "dev", "sets no sync_interval", func(o *objects) {
			for _, m := range o.configMaps {
				if m.Name == "nats-config" {
					m.Data["nats.conf"] = "jetstream {\n  store_dir: \"/data\"\n}\n"
				}
			}
		}},
		{"nats without its configuration", "dev", "reads no configuration file", func(o *objects) {
			for _, st := range o.statefulSets {
				if st.Name == "nats" {
					st.Spec.Template.Spec.Containers[0].Args = st.Spec.Template.Spec.Containers[0].Args[1:]
				}
			}
		}},
		{"prod without anti-affinity", "prod", "no pod anti-affinity", func(o *objects) { dep(o, "gateway").Spec.Template.Spec.Affinity = nil }},
		{"prod anti-affinity on others", "prod", "does not keep its own pods", func(o *objects) {
			a := dep(o, "sponsio-rules").Spec.Template.Spec.Affinity.PodAntiAffinity
			for i := range a.PreferredDuringSchedulingIgnoredDuringExecution {
				a.PreferredDuringSchedulingIgnoredDuringExecution[i].PodAffinityTerm.LabelSelector.MatchLabels = map[string]string{"app.kubernetes.io/name": "gateway"}
			}
		}},
		{"prod HPA below 3", "prod", "may scale below 3", func(o *objects) { o.hpas[0].Spec.MinReplicas = ptr.To[int32](1) }},
		{"prod on embedded NATS", "prod", "has no CARDROOM_NATS_URL", func(o *objects) {
			c := ctr(o, "sponsio-rules")
			c.Env = slices.DeleteFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "CARDROOM_NATS_URL" })
			for _, m := range o.configMaps {
				delete(m.Data, "CARDROOM_NATS_URL")
			}
		}},
		{"dev with two replicas", "dev", "runs at least 2 replicas, want 1", func(o *objects) { dep(o, "stats").Spec.Replicas = ptr.To[int32](2) }},
		{"dev without redis", "dev", "no redis StatefulSet", func(o *objects) {
			o.statefulSets = drop(o.statefulSets, func(s *appsv1.StatefulSet) bool { return s.Name == "redis" })
		}},
		{"dev nats without jetstream", "dev", "without JetStream", func(o *objects) {
			for _, s := range o.statefulSets {
				if s.Name == "nats" {
					s.Spec.Template.Spec.Containers[0].Args = nil
				}
			}
		}},
		{"dev nats server without routes", "dev", "no route to nats://nats-2.nats:6222", func(o *objects) {
			for _, s := range o.statefulSets {
				if s.Name == "nats" {
					c := &s.Spec.Template.Spec.Containers[0]
					c.Args = slices.DeleteFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--routes") })
				}
			}
		}},
		{"dev stream on one nats server", "dev", "keeps the stream with \"1\" replicas on 3 nats servers", func(o *objects) {
			for _, m := range o.configMaps {
				if _, ok := m.Data["CARDROOM_NATS_REPLICAS"]; ok {
					m.Data["CARDROOM_NATS_REPLICAS"] = "1"
				}
			}
		}},
		{"dev reaching one nats server", "dev", "not each of the StatefulSet's servers", func(o *objects) {
			for _, m := range o.configMaps {
				if _, ok := m.Data["CARDROOM_NATS_URL"]; ok {
					m.Data["CARDROOM_NATS_URL"] = "nats://nats:4222"
				}
			}
		}},
		{"prod stream without replicas", "prod", "keeps the stream with \"\" replicas, want 3", func(o *objects) {
			for _, m := range o.configMaps {
				delete(m.Data, "CARDROOM_NATS_REPLICAS")
			}
		}},
		{"dev pointed elsewhere", "dev", "reaches redis at", func(o *objects) {
			for _, m := range o.configMaps {
				if _, ok := m.Data["CARDROOM_REDIS_URL"]; ok {
					m.Data["CARDROOM_REDIS_URL"] = "redis://127.0.0.1:6379/0"
				}
			}
		}},
		{"no deny-all", "prod", "no deny-all NetworkPolicy", func(o *objects) {
			o.netpols = drop(o.netpols, func(n *networkingv1.NetworkPolicy) bool { return n.Name == "deny-all" })
		}},
		{"deny-all that denies only ingress", "dev", "no deny-all NetworkPolicy", func(o *objects) {
			for _, n := range o.netpols {
				if n.Name == "deny-all" {
					n.Spec.PolicyTypes = n.Spec.PolicyTypes[:1]
				}
			}
		}},
		{"no disruption budget", "prod", "no PodDisruptionBudget", func(o *objects) { o.pdbs = o.pdbs[1:] }},
		{"no autoscaler", "dev", "no HorizontalPodAutoscaler", func(o *objects) { o.hpas = o.hpas[1:] }},
		{"no startup probe", "prod", "no startup probe", func(o *objects) { ctr(o, "sponsio-rules").StartupProbe = nil }},
		{"service token in plain text", "dev", "CARDROOM_SERVICE_TOKEN does not come from a Secret", func(o *objects) {
			c := ctr(o, "stats")
			for i := range c.Env {
				if c.Env[i].Name == "CARDROOM_SERVICE_TOKEN" {
					c.Env[i].ValueFrom, c.Env[i].Value = nil, "plain"
				}
			}
		}},
		{"gateway autoscaled on CPU only", "prod", "HPA gateway: does not scale on memory", func(o *objects) {
			for _, h := range o.hpas {
				if h.Name == "gateway" {
					h.Spec.Metrics = h.Spec.Metrics[:1]
				}
			}
		}},
		{"replicas not spread over zones", "prod", "not spread over topology.kubernetes.io/zone", func(o *objects) {
			tsc := &dep(o, "saboteur-rules").Spec.Template.Spec.TopologySpreadConstraints
			*tsc = (*tsc)[:1]
		}},
		{"dev nats servers on one node", "dev", "nats servers may share a node", func(o *objects) {
			for _, st := range o.statefulSets {
				if st.Name == "nats" {
					st.Spec.Template.Spec.Affinity = nil
				}
			}
		}},
		{"egress anywhere", "prod", "allows any destination", func(o *objects) {
			for _, n := range o.netpols {
				if n.Name == "rules" {
					n.Spec.Egress[0].To = nil
				}
			}
		}},
		{"stats open to every pod", "dev", "admits more than the gateway's pods", func(o *objects) {
			for _, n := range o.netpols {
				if n.Name == "stats" {
					n.Spec.Ingress[0].From[0].PodSelector = &metav1.LabelSelector{}
				}
			}
		}},
		{"service selecting nothing", "dev", "selects no workload", func(o *objects) {
			o.services[0].Spec.Selector = map[string]string{"app.kubernetes.io/name": "nobody"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := load(t, tc.overlay)
			tc.breakIt(o)
			got := audit(o)
			for _, p := range got {
				if strings.Contains(p, tc.want) {
					return
				}
			}
			t.Errorf("audit missed %q; it reported %q", tc.want, got)
		})
	}
}

func drop[T any](list []*T, match func(*T) bool) []*T {
	var out []*T
	for _, v := range list {
		if !match(v) {
			out = append(out, v)
		}
	}
	return out
}
