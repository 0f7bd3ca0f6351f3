package k8s_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// overlays are the directories a cluster is deployed from.
var overlays = []string{"dev", "prod"}

// objects is one rendered overlay, every object decoded into its k8s.io/api type.
type objects struct {
	overlay         string
	namespaces      []*corev1.Namespace
	deployments     []*appsv1.Deployment
	statefulSets    []*appsv1.StatefulSet
	services        []*corev1.Service
	serviceAccounts []*corev1.ServiceAccount
	configMaps      []*corev1.ConfigMap
	secrets         []*corev1.Secret
	hpas            []*autoscalingv2.HorizontalPodAutoscaler
	pdbs            []*policyv1.PodDisruptionBudget
	netpols         []*networkingv1.NetworkPolicy
	ingresses       []*networkingv1.Ingress
}

var (
	renderOnce sync.Once
	rendered   map[string][][]byte
	renderErr  error
)

// renderYAML runs kustomize (the Go API, as `kubectl kustomize` does) on every overlay once and
// keeps each object's YAML.
func renderYAML(t *testing.T) map[string][][]byte {
	t.Helper()
	renderOnce.Do(func() {
		rendered = map[string][][]byte{}
		k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
		for _, o := range overlays {
			m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join("overlays", o))
			if err != nil {
				renderErr = fmt.Errorf("kustomize %s: %w", o, err)
				return
			}
			for _, r := range m.Resources() {
				y, err := r.AsYAML()
				if err != nil {
					renderErr = fmt.Errorf("%s: %s: %w", o, r.CurId(), err)
					return
				}
				rendered[o] = append(rendered[o], y)
			}
		}
	})
	if renderErr != nil {
		t.Fatal(renderErr)
	}
	return rendered
}

// decode turns an overlay's YAML into typed objects, strictly: an unknown or duplicated field, or
// a kind this project does not deploy, is an error.
func decode(overlay string, docs [][]byte) (*objects, error) {
	o := &objects{overlay: overlay}
	for _, y := range docs {
		var meta struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(y, &meta); err != nil {
			return nil, err
		}
		var err error
		switch meta.APIVersion + "/" + meta.Kind {
		case "v1/Namespace":
			o.namespaces, err = strict(y, o.namespaces)
		case "apps/v1/Deployment":
			o.deployments, err = strict(y, o.deployments)
		case "apps/v1/StatefulSet":
			o.statefulSets, err = strict(y, o.statefulSets)
		case "v1/Service":
			o.services, err = strict(y, o.services)
		case "v1/ServiceAccount":
			o.serviceAccounts, err = strict(y, o.serviceAccounts)
		case "v1/ConfigMap":
			o.configMaps, err = strict(y, o.configMaps)
		case "v1/Secret":
			o.secrets, err = strict(y, o.secrets)
		case "autoscaling/v2/HorizontalPodAutoscaler":
			o.hpas, err = strict(y, o.hpas)
		case "policy/v1/PodDisruptionBudget":
			o.pdbs, err = strict(y, o.pdbs)
		case "networking.k8s.io/v1/NetworkPolicy":
			o.netpols, err = strict(y, o.netpols)
		case "networking.k8s.io/v1/Ingress":
			o.ingresses, err = strict(y, o.ingresses)
		default:
			err = fmt.Errorf("unexpected kind %s %s", meta.APIVersion, meta.Kind)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w\n%s", overlay, err, y)
		}
	}
	return o, nil
}

func strict[T any](y []byte, list []*T) ([]*T, error) {
	v := new(T)
	if err := yaml.UnmarshalStrict(y, v); err != nil {
		return nil, err
	}
	return append(list, v), nil
}

func load(t *testing.T, overlay string) *objects {
	t.Helper()
	o, err := decode(overlay, renderYAML(t)[overlay])
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	docs := renderYAML(t)["dev"]
	var dep []byte
	for _, y := range docs {
		if bytes.Contains(y, []byte("kind: Deployment")) {
			dep = y
			break
		}
	}
	broken := bytes.Replace(dep, []byte("readinessProbe:"), []byte("readinesProbe:"), 1)
	if bytes.Equal(broken, dep) {
		t.Fatal("no readinessProbe to misspell")
	}
	if _, err := decode("dev", [][]byte{broken}); err == nil {
		t.Fatal("a misspelt field decoded without error")
	}
	if _, err := decode("dev", [][]byte{[]byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n")}); err == nil {
		t.Fatal("an unexpected kind decoded without error")
	}
}
