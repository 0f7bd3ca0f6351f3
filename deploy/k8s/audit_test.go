package k8s_test

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// games are the rules services the gateway must route to.
var games = []string{"sapotagem", "sponsio", "sabaisabai", "saboteur"}

// healthService is the gRPC health service name each component's readiness probe asks for.
var healthService = map[string]string{
	"gateway": "cardroom.gateway.v1.GatewayService",
	"rules":   "cardroom.rules.v1.RulesService",
	"stats":   "cardroom.stats.v1.StatsService",
}

// builtImages are the images `make images` builds (ko names each after its main package).
var builtImages = []string{"cardroom/gateway", "cardroom/sapotagem", "cardroom/sponsio", "cardroom/sabaisabai", "cardroom/saboteur", "cardroom/stats", "cardroom/cardroom"}

// externalSecrets are created out of band in an overlay, never rendered (they hold real keys).
var externalSecrets = map[string][]string{"prod": {"gateway-session", "cardroom-service", "cardroom-data", "cardroom-ca", "cardroom-tls"}}

// audit lists every way an overlay breaks the deployment rules; nothing means it is fine.
func audit(o *objects) []string {
	var p problems
	p.overlay = o.overlay
	for _, d := range o.deployments {
		p.workload(o, "Deployment", d.Name, &d.Spec.Template)
		p.deployment(o, d)
	}
	for _, s := range o.statefulSets {
		p.workload(o, "StatefulSet", s.Name, &s.Spec.Template)
	}
	p.serviceAccounts(o)
	p.services(o)
	p.routes(o)
	p.denyAll(o)
	p.egress(o)
	p.internalIngress(o)
	p.trustedProxies(o)
	p.scaling(o)
	switch o.overlay {
	case "dev":
		p.dev(o)
	case "prod":
		p.prod(o)
	}
	return p.list
}

type problems struct {
	overlay string
	list    []string
}

func (p *problems) add(format string, args ...any) {
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// workload: resources, security and images of every pod template.
func (p *problems) workload(o *objects, kind, name string, t *corev1.PodTemplateSpec) {
	ps := t.Spec.SecurityContext
	podNonRoot := ps != nil && ps.RunAsNonRoot != nil && *ps.RunAsNonRoot
	if len(t.Spec.Containers) == 0 {
		p.add("%s %s: no containers", kind, name)
	}
	for _, c := range append(slices.Clone(t.Spec.InitContainers), t.Spec.Containers...) {
		where := fmt.Sprintf("%s %s container %s", kind, name, c.Name)
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, okReq := c.Resources.Requests[r]
			lim, okLim := c.Resources.Limits[r]
			switch {
			case !okReq || req.IsZero():
				p.add("%s: no %s request", where, r)
			case !okLim || lim.IsZero():
				p.add("%s: no %s limit", where, r)
			case lim.Cmp(req) < 0:
				p.add("%s: %s limit %s below request %s", where, r, lim.String(), req.String())
			}
		}
		sc := c.SecurityContext
		nonRoot := podNonRoot
		if sc != nil && sc.RunAsNonRoot != nil {
			nonRoot = *sc.RunAsNonRoot
		}
		if !nonRoot {
			p.add("%s: not runAsNonRoot", where)
		}
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			p.add("%s: root filesystem not read-only", where)
		}
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			p.add("%s: privilege escalation allowed", where)
		}
		if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") || len(sc.Capabilities.Add) > 0 {
			p.add("%s: capabilities not all dropped", where)
		}
		if !tagged(c.Image) {
			p.add("%s: image %q has no fixed tag", where, c.Image)
		}
		p.references(o, where, c)
	}
}

// tagged: a digest, or a tag that is not "latest".
func tagged(image string) bool {
	if strings.Contains(image, "@sha256:") {
		return true
	}
	slash := strings.LastIndex(image, "/")
	colon := strings.LastIndex(image, ":")
	if colon < slash+1 {
		return false
	}
	tag := image[colon+1:]
	return tag != "" && tag != "latest"
}

// references: every ConfigMap and Secret a container reads exists (or is an external Secret).
func (p *problems) references(o *objects, where string, c corev1.Container) {
	cm := func(name string) {
		if !slices.ContainsFunc(o.configMaps, func(m *corev1.ConfigMap) bool { return m.Name == name }) {
			p.add("%s: ConfigMap %s does not exist", where, name)
		}
	}
	sec := func(name, key string) {
		if slices.Contains(externalSecrets[o.overlay], name) {
			return
		}
		i := slices.IndexFunc(o.secrets, func(s *corev1.Secret) bool { return s.Name == name })
		if i < 0 {
			p.add("%s: Secret %s does not exist", where, name)
			return
		}
		_, inData := o.secrets[i].Data[key]
		_, inString := o.secrets[i].StringData[key]
		if key != "" && !inData && !inString {
			p.add("%s: Secret %s has no key %s", where, name, key)
		}
	}
	for _, e := range c.EnvFrom {
		if e.ConfigMapRef != nil {
			cm(e.ConfigMapRef.Name)
		}
		if e.SecretRef != nil {
			sec(e.SecretRef.Name, "")
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
			cm(r.Name)
		}
		if r := e.ValueFrom.SecretKeyRef; r != nil {
			sec(r.Name, r.Key)
		}
	}
}

// deployment: cardroom's own processes answer native gRPC probes on their gRPC port.
func (p *problems) deployment(o *objects, d *appsv1.Deployment) {
	component := d.Spec.Template.Labels["app.kubernetes.io/component"]
	want, ok := healthService[component]
	if !ok {
		p.add("Deployment %s: unknown component %q", d.Name, component)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		where := fmt.Sprintf("Deployment %s container %s", d.Name, c.Name)
		grpcPort := int32(0)
		for _, port := range c.Ports {
			if port.Name == "grpc" {
				grpcPort = port.ContainerPort
			}
		}
		if grpcPort == 0 {
			p.add("%s: no port named grpc", where)
		}
		for kind, pr := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
			switch {
			case pr == nil:
				p.add("%s: no %s probe", where, kind)
			case pr.GRPC == nil || pr.HTTPGet != nil || pr.TCPSocket != nil || pr.Exec != nil:
				p.add("%s: %s probe is not gRPC", where, kind)
			case pr.GRPC.Port != grpcPort:
				p.add("%s: %s probe on port %d, gRPC on %d", where, kind, pr.GRPC.Port, grpcPort)
			}
		}
		switch pr := c.StartupProbe; {
		case pr == nil:
			p.add("%s: no startup probe", where)
		case pr.GRPC == nil || pr.GRPC.Port != grpcPort:
			p.add("%s: startup probe is not gRPC on port %d", where, grpcPort)
		}
		// The internal services refuse calls without it beyond loopback, and the gateway sends it.
		if !fromSecret(c, "CARDROOM_SERVICE_TOKEN") {
			p.add("%s: CARDROOM_SERVICE_TOKEN does not come from a Secret", where)
		}
		if pr := c.ReadinessProbe; pr != nil && pr.GRPC != nil && (pr.GRPC.Service == nil || *pr.GRPC.Service != want) {
			p.add("%s: readiness probe does not ask for %s", where, want)
		}
		// Readiness follows Redis and NATS; liveness must not (a restart would not bring them
		// back), so it asks for the process's overall status.
		if pr := c.LivenessProbe; pr != nil && pr.GRPC != nil && pr.GRPC.Service != nil && *pr.GRPC.Service != "" {
			p.add("%s: liveness probe asks for %s, which follows the dependencies, not the overall status", where, *pr.GRPC.Service)
		}
		if image, _, _ := strings.Cut(c.Image, ":"); !slices.Contains(builtImages, image) {
			p.add("%s: image %s is none of those make images builds", where, c.Image)
		}
	}
	if d.Spec.Template.Spec.AutomountServiceAccountToken == nil || *d.Spec.Template.Spec.AutomountServiceAccountToken {
		p.add("Deployment %s: mounts a service account token it does not use", d.Name)
	}
}

// serviceAccounts: one of its own per Deployment, and it exists.
func (p *problems) serviceAccounts(o *objects) {
	used := map[string]string{}
	for _, d := range o.deployments {
		sa := d.Spec.Template.Spec.ServiceAccountName
		switch {
		case sa == "" || sa == "default":
			p.add("Deployment %s: no ServiceAccount of its own", d.Name)
			continue
		case used[sa] != "":
			p.add("Deployment %s: shares ServiceAccount %s with %s", d.Name, sa, used[sa])
		}
		used[sa] = d.Name
		if !slices.ContainsFunc(o.serviceAccounts, func(s *corev1.ServiceAccount) bool { return s.Name == sa }) {
			p.add("Deployment %s: ServiceAccount %s does not exist", d.Name, sa)
		}
	}
}

// services: each selects pods of some workload, on a port they have.
func (p *problems) services(o *objects) {
	for _, s := range o.services {
		if len(s.Spec.Selector) == 0 {
			p.add("Service %s: no selector", s.Name)
			continue
		}
		if len(selectedTemplates(o, s)) == 0 {
			p.add("Service %s: selects no workload", s.Name)
		}
		for _, port := range s.Spec.Ports {
			if !serves(o, s, port) {
				p.add("Service %s: port %s reaches no container port", s.Name, port.Name)
			}
		}
	}
}

func selectedTemplates(o *objects, s *corev1.Service) []*corev1.PodTemplateSpec {
	sel := labels.SelectorFromSet(s.Spec.Selector)
	var out []*corev1.PodTemplateSpec
	for _, d := range o.deployments {
		if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			out = append(out, &d.Spec.Template)
		}
	}
	for _, st := range o.statefulSets {
		if sel.Matches(labels.Set(st.Spec.Template.Labels)) {
			out = append(out, &st.Spec.Template)
		}
	}
	return out
}

func serves(o *objects, s *corev1.Service, port corev1.ServicePort) bool {
	for _, t := range selectedTemplates(o, s) {
		for _, c := range t.Spec.Containers {
			for _, cp := range c.Ports {
				if port.TargetPort.StrVal == cp.Name && cp.Name != "" || port.TargetPort.IntValue() == int(cp.ContainerPort) ||
					port.TargetPort.IntValue() == 0 && port.TargetPort.StrVal == "" && port.Port == cp.ContainerPort {
					return true
				}
			}
		}
	}
	return false
}

// env is a container's effective variable (explicit env wins over envFrom ConfigMaps, as in a pod).
func env(o *objects, c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom == nil {
			return e.Value, true
		}
	}
	val, found := "", false
	for _, ef := range c.EnvFrom {
		if ef.ConfigMapRef == nil {
			continue
		}
		key, ok := strings.CutPrefix(name, ef.Prefix)
		if !ok {
			continue
		}
		for _, m := range o.configMaps {
			if m.Name == ef.ConfigMapRef.Name {
				if v, ok := m.Data[key]; ok {
					val, found = v, true
				}
			}
		}
	}
	return val, found
}

func deploymentNamed(o *objects, name string) *appsv1.Deployment {
	for _, d := range o.deployments {
		if d.Name == name {
			return d
		}
	}
	return nil
}

// routes: every rules service the gateway's CARDROOM_RULES_TARGETS names is a headless Service
// in front of that game's rules pods, on their gRPC port, and every game is routed.
func (p *problems) routes(o *objects) {
	gw := deploymentNamed(o, "gateway")
	if gw == nil {
		p.add("no gateway Deployment")
		return
	}
	raw, ok := env(o, gw.Spec.Template.Spec.Containers[0], "CARDROOM_RULES_TARGETS")
	if !ok || raw == "" {
		p.add("gateway: CARDROOM_RULES_TARGETS not set")
		return
	}
	if !fromSecret(gw.Spec.Template.Spec.Containers[0], "CARDROOM_SESSION_KEY") {
		p.add("gateway: CARDROOM_SESSION_KEY does not come from a Secret")
	}
	routed := map[string]bool{}
	for pair := range strings.SplitSeq(raw, ",") {
		game, target, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok {
			p.add("gateway: rules target %q is not game=target", pair)
			continue
		}
		routed[game] = true
		hostPort, ok := strings.CutPrefix(target, "dns:///")
		if !ok {
			p.add("gateway: %s target %q is not dns:/// (no client-side balancing over replicas)", game, target)
			continue
		}
		host, port, _ := strings.Cut(hostPort, ":")
		name, _, _ := strings.Cut(host, ".")
		i := slices.IndexFunc(o.services, func(s *corev1.Service) bool { return s.Name == name })
		if i < 0 {
			p.add("gateway: %s routes to %s, no such Service", game, name)
			continue
		}
		s := o.services[i]
		if s.Spec.ClusterIP != corev1.ClusterIPNone {
			p.add("gateway: %s routes to Service %s, which is not headless", game, name)
		}
		portOK := false
		for _, sp := range s.Spec.Ports {
			if fmt.Sprint(sp.Port) == port && serves(o, s, sp) {
				portOK = true
			}
		}
		if !portOK {
			p.add("gateway: %s routes to %s:%s, which reaches no pod port", game, name, port)
		}
		for _, t := range selectedTemplates(o, s) {
			if t.Labels["app.kubernetes.io/component"] != "rules" {
				p.add("gateway: %s routes to Service %s, which selects non-rules pods", game, name)
			}
		}
	}
	for _, g := range games {
		if !routed[g] {
			p.add("gateway: no route to the %s rules service", g)
		}
	}
}

// denyAll: a policy that selects every pod and allows nothing in either direction.
func (p *problems) denyAll(o *objects) {
	for _, np := range o.netpols {
		s := np.Spec
		if len(s.PodSelector.MatchLabels) == 0 && len(s.PodSelector.MatchExpressions) == 0 &&
			len(s.Ingress) == 0 && len(s.Egress) == 0 &&
			slices.Contains(s.PolicyTypes, "Ingress") && slices.Contains(s.PolicyTypes, "Egress") {
			return
		}
	}
	p.add("no deny-all NetworkPolicy")
}

// trustedProxies: a Deployment that believes X-Forwarded-For from some addresses
// (CARDROOM_TRUSTED_PROXIES) admits its ports only from named peers: open to anywhere, a peer inside
// the trusted range could name any client and escape the per-address sign-in limits.
func (p *problems) trustedProxies(o *objects) {
	for _, d := range o.deployments {
		if v, _ := env(o, d.Spec.Template.Spec.Containers[0], "CARDROOM_TRUSTED_PROXIES"); v == "" {
			continue
		}
		for _, np := range o.netpols {
			if !labels.SelectorFromSet(np.Spec.PodSelector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
				continue
			}
			for _, r := range np.Spec.Ingress {
				if len(r.From) == 0 {
					p.add("Deployment %s trusts proxies (CARDROOM_TRUSTED_PROXIES) while NetworkPolicy %s admits its ports from anywhere", d.Name, np.Name)
				}
			}
		}
	}
}

// scaling: a Deployment that runs more than one pod (under an autoscaler) has a disruption budget
// and sets no replicas of its own (the autoscaler owns the count: a value in the manifest would
// reset it at every apply); one that never runs more than one (stats, a single consumer) has no
// budget, which would protect nothing and only block node drains; every one but stats has an
// autoscaler; every autoscaler scales a Deployment that exists.
func (p *problems) scaling(o *objects) {
	for _, h := range o.hpas {
		if h.Spec.ScaleTargetRef.Kind != "Deployment" || deploymentNamed(o, h.Spec.ScaleTargetRef.Name) == nil {
			p.add("HPA %s: scales %s %s, which does not exist", h.Name, h.Spec.ScaleTargetRef.Kind, h.Spec.ScaleTargetRef.Name)
		}
	}
	for _, d := range o.deployments {
		pdb := false
		for _, b := range o.pdbs {
			if b.Spec.Selector != nil && labels.SelectorFromSet(b.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) && len(b.Spec.Selector.MatchLabels) > 0 {
				pdb = true
			}
		}
		h := hpaOf(o, d)
		if h != nil && d.Spec.Replicas != nil {
			p.add("Deployment %s: sets replicas (%d) under HPA %s, which owns the count", d.Name, *d.Spec.Replicas, h.Name)
		}
		single := h == nil && replicas(d) <= 1
		if !pdb && !single {
			p.add("Deployment %s: no PodDisruptionBudget", d.Name)
		}
		if pdb && single {
			p.add("Deployment %s: a PodDisruptionBudget on a single replica protects nothing", d.Name)
		}
		stats := d.Name == "stats"
		if h == nil && !stats {
			p.add("Deployment %s: no HorizontalPodAutoscaler", d.Name)
		}
		if h != nil && stats {
			p.add("Deployment stats: autoscaled, but runs one consumer")
		}
		if h != nil {
			resources := map[corev1.ResourceName]bool{}
			for _, m := range h.Spec.Metrics {
				if m.Resource != nil {
					resources[m.Resource.Name] = true
				}
			}
			if !resources[corev1.ResourceCPU] {
				p.add("HPA %s: does not scale on CPU", h.Name)
			}
			// A gateway's memory follows its streams and sign-ins, not its CPU.
			if d.Name == "gateway" && !resources[corev1.ResourceMemory] {
				p.add("HPA %s: does not scale on memory", h.Name)
			}
			spread := map[string]bool{}
			for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
				if c.LabelSelector != nil && len(c.LabelSelector.MatchLabels) > 0 &&
					labels.SelectorFromSet(c.LabelSelector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
					spread[c.TopologyKey] = true
				}
			}
			for _, key := range []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"} {
				if !spread[key] {
					p.add("Deployment %s: replicas not spread over %s (topologySpreadConstraints)", d.Name, key)
				}
			}
		}
	}
}

// egress: every egress rule of every policy names its peers and its ports (no "anywhere").
func (p *problems) egress(o *objects) {
	for _, np := range o.netpols {
		for i, r := range np.Spec.Egress {
			if len(r.To) == 0 {
				p.add("NetworkPolicy %s: egress rule %d allows any destination", np.Name, i)
			}
			if len(r.Ports) == 0 {
				p.add("NetworkPolicy %s: egress rule %d allows any port", np.Name, i)
			}
		}
	}
}

// internalIngress: the internal services' gRPC port (rules, stats) admits the gateway's pods only.
func (p *problems) internalIngress(o *objects) {
	for _, np := range o.netpols {
		component := np.Spec.PodSelector.MatchLabels["app.kubernetes.io/component"]
		name := np.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"]
		if component != "rules" && name != "stats" {
			continue
		}
		for _, r := range np.Spec.Ingress {
			on7070 := len(r.Ports) == 0
			for _, port := range r.Ports {
				on7070 = on7070 || port.Port != nil && port.Port.IntValue() == 7070
			}
			if !on7070 {
				continue
			}
			if len(r.From) == 0 {
				p.add("NetworkPolicy %s: the internal gRPC port admits anyone", np.Name)
			}
			for _, f := range r.From {
				if f.NamespaceSelector != nil || f.IPBlock != nil || f.PodSelector == nil || f.PodSelector.MatchLabels["app.kubernetes.io/name"] != "gateway" {
					p.add("NetworkPolicy %s: the internal gRPC port admits more than the gateway's pods", np.Name)
				}
			}
		}
	}
}

// hpaOf is the autoscaler of d, or nil.
func hpaOf(o *objects, d *appsv1.Deployment) *autoscalingv2.HorizontalPodAutoscaler {
	for _, h := range o.hpas {
		if h.Spec.ScaleTargetRef.Kind == "Deployment" && h.Spec.ScaleTargetRef.Name == d.Name {
			return h
		}
	}
	return nil
}

// minReplicas is the fewest pods d runs: its autoscaler's minimum, or its own count.
func minReplicas(o *objects, d *appsv1.Deployment) int32 {
	if h := hpaOf(o, d); h != nil {
		if h.Spec.MinReplicas == nil {
			return 1
		}
		return *h.Spec.MinReplicas
	}
	return replicas(d)
}

func replicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// dev: one replica of each, Redis and NATS with JetStream as StatefulSets from official images,
// and the processes pointed at them.
func (p *problems) dev(o *objects) {
	for _, d := range o.deployments {
		if n := minReplicas(o, d); n != 1 {
			p.add("dev: Deployment %s runs at least %d replicas, want 1", d.Name, n)
		}
	}
	dep := map[string]struct{ image, url string }{
		"redis": {"redis:", "redis://redis:6379"},
		"nats":  {"nats:", "nats://nats:4222"},
	}
	for name, want := range dep {
		i := slices.IndexFunc(o.statefulSets, func(s *appsv1.StatefulSet) bool { return s.Name == name })
		if i < 0 {
			p.add("dev: no %s StatefulSet", name)
			continue
		}
		st := o.statefulSets[i]
		c := st.Spec.Template.Spec.Containers[0]
		if !strings.HasPrefix(c.Image, want.image) {
			p.add("dev: %s image %s is not the official one", name, c.Image)
		}
		if name == "nats" && !slices.Contains(c.Args, "--jetstream") && !slices.Contains(c.Args, "-js") {
			p.add("dev: nats runs without JetStream")
		}
		if name == "redis" && !strings.Contains(strings.Join(c.Args, " "), "--appendonly yes") {
			p.add("dev: redis runs without persistence")
		}
		// The durability promise (docs/operations.md, "Durability"): on disk before the answer.
		if name == "redis" && !strings.Contains(strings.Join(c.Args, " "), "--appendfsync always") {
			p.add("dev: redis does not fsync its append-only file before answering (--appendfsync always)")
		}
		if len(st.Spec.VolumeClaimTemplates) == 0 {
			p.add("dev: %s keeps no data on a volume", name)
		}
		if !slices.ContainsFunc(o.services, func(s *corev1.Service) bool { return s.Name == name && len(selectedTemplates(o, s)) > 0 }) {
			p.add("dev: no Service in front of %s", name)
		}
		if name == "nats" {
			p.natsCluster(o, st)
			p.natsSync(o, st)
			if !antiAffine(st.Spec.Template) {
				p.add("dev: nats servers may share a node (no pod anti-affinity on kubernetes.io/hostname)")
			}
			continue
		}
		for _, d := range o.deployments {
			v, _ := env(o, d.Spec.Template.Spec.Containers[0], "CARDROOM_"+strings.ToUpper(name)+"_URL")
			if !strings.HasPrefix(v, want.url) {
				p.add("dev: Deployment %s reaches %s at %q, not the StatefulSet", d.Name, name, v)
			}
		}
	}
}

// natsSync: dev's NATS servers read a configuration file (a ConfigMap mounted where --config
// points) that fsyncs JetStream every second (docs/operations.md, "Durability"); flags cannot say it.
func (p *problems) natsSync(o *objects, st *appsv1.StatefulSet) {
	c := st.Spec.Template.Spec.Containers[0]
	var file string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--config="); ok {
			file = v
		}
	}
	if file == "" {
		p.add("dev: nats reads no configuration file, so JetStream fsyncs at NATS's default (sync_interval)")
		return
	}
	dir, key := path.Split(file)
	for _, m := range c.VolumeMounts {
		if path.Clean(m.MountPath) != path.Clean(dir) {
			continue
		}
		for _, v := range st.Spec.Template.Spec.Volumes {
			if v.Name != m.Name || v.ConfigMap == nil {
				continue
			}
			for _, cm := range o.configMaps {
				if cm.Name == v.ConfigMap.Name && strings.Contains(cm.Data[key], `sync_interval: "1s"`) {
					return
				}
			}
		}
	}
	p.add("dev: nats's configuration file %s sets no sync_interval: \"1s\"", file)
}

// natsCluster: dev's NATS StatefulSet is one cluster whose servers route to each other, every
// process names each server (so that it survives the loss of one) and keeps the stream with as
// many replicas as there are servers, up to 3.
func (p *problems) natsCluster(o *objects, st *appsv1.StatefulSet) {
	n := int32(1)
	if st.Spec.Replicas != nil {
		n = *st.Spec.Replicas
	}
	var servers []string
	for i := range n {
		servers = append(servers, fmt.Sprintf("nats://%s-%d.%s:4222", st.Name, i, st.Spec.ServiceName))
	}
	args := strings.Join(st.Spec.Template.Spec.Containers[0].Args, " ")
	if n > 1 {
		for i := range n {
			if route := fmt.Sprintf("nats://%s-%d.%s:6222", st.Name, i, st.Spec.ServiceName); !strings.Contains(args, route) {
				p.add("dev: nats has %d servers but no route to %s", n, route)
			}
		}
		if !strings.Contains(args, "--server_name=$(POD_NAME)") {
			p.add("dev: nats servers are not named after their pods (JetStream needs stable names)")
		}
		if st.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
			p.add("dev: nats servers start one after the other (podManagementPolicy %q): a server is not ready before its routes", st.Spec.PodManagementPolicy)
		}
	}
	want := strconv.Itoa(int(min(n, 3)))
	for _, d := range o.deployments {
		c := d.Spec.Template.Spec.Containers[0]
		v, _ := env(o, c, "CARDROOM_NATS_URL")
		if got := strings.Split(v, ","); !slices.Equal(got, servers) {
			p.add("dev: Deployment %s reaches nats at %q, not each of the StatefulSet's servers %q", d.Name, v, strings.Join(servers, ","))
		}
		if r, _ := env(o, c, "CARDROOM_NATS_REPLICAS"); r != want {
			p.add("dev: Deployment %s keeps the stream with %q replicas on %d nats servers, want %s", d.Name, r, n, want)
		}
	}
}

// prod: three replicas of the gateway and each rules service, kept apart; external Redis and NATS.
func (p *problems) prod(o *objects) {
	for _, d := range o.deployments {
		if d.Name == "stats" {
			continue
		}
		if n := minReplicas(o, d); n != 3 {
			p.add("prod: Deployment %s runs at least %d replicas, want 3", d.Name, n)
		}
		aa := d.Spec.Template.Spec.Affinity
		if aa == nil || aa.PodAntiAffinity == nil {
			p.add("prod: Deployment %s has no pod anti-affinity", d.Name)
			continue
		}
		self := false
		var terms []corev1.PodAffinityTerm
		terms = append(terms, aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution...)
		for _, w := range aa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
		for _, t := range terms {
			if t.TopologyKey == "kubernetes.io/hostname" && t.LabelSelector != nil && len(t.LabelSelector.MatchLabels) > 0 &&
				labels.SelectorFromSet(t.LabelSelector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
				self = true
			}
		}
		if !self {
			p.add("prod: Deployment %s's anti-affinity does not keep its own pods on different nodes", d.Name)
		}
	}
	for _, h := range o.hpas {
		if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas < 3 {
			p.add("prod: HPA %s may scale below 3", h.Name)
		}
	}
	if len(o.statefulSets) > 0 {
		p.add("prod: runs StatefulSets; Redis and NATS are external")
	}
	for _, d := range o.deployments {
		c := d.Spec.Template.Spec.Containers[0]
		// The external NATS is a cluster of at least three servers keeping three copies.
		if r, _ := env(o, c, "CARDROOM_NATS_REPLICAS"); r != "3" {
			p.add("prod: Deployment %s keeps the stream with %q replicas, want 3", d.Name, r)
		}
		for _, v := range []string{"CARDROOM_REDIS_URL", "CARDROOM_NATS_URL"} {
			u, _ := env(o, c, v)
			switch {
			case u == "" && !fromSecret(c, v):
				p.add("prod: Deployment %s has no %s (it would run on an embedded one)", d.Name, v)
			case !fromSecret(c, v):
				p.add("prod: Deployment %s's %s does not come from a Secret (its credentials would be in a ConfigMap)", d.Name, v)
			}
		}
		if ca, _ := env(o, c, "SSL_CERT_FILE"); ca == "" || !mounted(d, ca) {
			p.add("prod: Deployment %s has no CA bundle mounted at SSL_CERT_FILE %q (no TLS to Redis, NATS and the collector)", d.Name, ca)
		}
	}
	p.ingress(o)
}

// antiAffine: t's pods prefer or require nodes without another of them.
func antiAffine(t corev1.PodTemplateSpec) bool {
	aa := t.Spec.Affinity
	if aa == nil || aa.PodAntiAffinity == nil {
		return false
	}
	terms := slices.Clone(aa.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution)
	for _, w := range aa.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
		terms = append(terms, w.PodAffinityTerm)
	}
	for _, term := range terms {
		if term.TopologyKey == "kubernetes.io/hostname" && term.LabelSelector != nil && len(term.LabelSelector.MatchLabels) > 0 &&
			labels.SelectorFromSet(term.LabelSelector.MatchLabels).Matches(labels.Set(t.Labels)) {
			return true
		}
	}
	return false
}

// mounted: the file path lies under one of d's first container's volume mounts.
func mounted(d *appsv1.Deployment, path string) bool {
	for _, m := range d.Spec.Template.Spec.Containers[0].VolumeMounts {
		if strings.HasPrefix(path, strings.TrimSuffix(m.MountPath, "/")+"/") {
			return true
		}
	}
	return false
}

// ingress: native gRPC and the browsers' gRPC-Web both reach the gateway over TLS.
func (p *problems) ingress(o *objects) {
	var grpc, web bool
	for _, in := range o.ingresses {
		proto := in.Annotations["nginx.ingress.kubernetes.io/backend-protocol"]
		hosts := map[string]bool{}
		for _, t := range in.Spec.TLS {
			if t.SecretName == "" {
				p.add("Ingress %s: TLS without a certificate Secret", in.Name)
			}
			for _, h := range t.Hosts {
				hosts[h] = true
			}
		}
		for _, r := range in.Spec.Rules {
			if !hosts[r.Host] {
				p.add("Ingress %s: host %q without TLS", in.Name, r.Host)
				continue
			}
			for _, path := range r.HTTP.Paths {
				if b := path.Backend.Service; b != nil && b.Name == "gateway" {
					grpc = grpc || proto == "GRPC"
					web = web || proto == "HTTP"
				}
			}
		}
	}
	if !grpc {
		p.add("prod: no Ingress takes native gRPC (backend-protocol GRPC) to the gateway over TLS")
	}
	if !web {
		p.add("prod: no Ingress takes gRPC-Web (backend-protocol HTTP) to the gateway over TLS")
	}
}

func fromSecret(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			return true
		}
	}
	return false
}
