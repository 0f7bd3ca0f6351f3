// Package k8s holds cardroom's Kubernetes manifests (a kustomize base, the network-policies
// component, the dev and prod overlays) and the tests that render every overlay and check what the
// cluster would get, without a cluster.
package k8s
