// Command images builds cardroom's container images with ko on a machine with no registry access.
//
// ko puts each static Go binary (CGO_ENABLED=0) on a base image it fetches from a registry. The
// base here is made by this program instead, from nothing: a user and group nonroot (65532), an
// empty /tmp (sticky, world-writable; in Kubernetes an emptyDir is mounted there, the root
// filesystem being read-only), the user 65532:65532 and the settings a process in a container
// needs (listening on every interface, JSON logs). It serves that base from a registry of its own,
// in memory on loopback, for the time of the build, and runs ko against it:
//
//	go run ./images -ko <ko binary> -out <dir> -tag <tag> <main package>...
//
// (from tools/, outside the workspace; `make images` runs it). ko writes every image into one
// tarball (<dir>/images.tar, names cardroom/<binary>:<tag>, loadable with `docker load`) and an
// SPDX SBOM per image into <dir>/sbom/.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// registryAddr is where the loopback registry serving the base listens, when it can.
const registryAddr = "127.0.0.1:15050"

// nonroot is the user and group the processes run as (the manifests' runAsUser and runAsGroup).
const nonroot = 65532

func main() {
	ko := flag.String("ko", "", "the ko binary")
	out := flag.String("out", "", "directory for images.tar and sbom/")
	tag := flag.String("tag", "", "the images' tag")
	repo := flag.String("repo", "cardroom", "the images' repository prefix (cardroom/<binary>)")
	dir := flag.String("C", ".", "the directory to build in (the Go workspace's root)")
	flag.Parse()
	if *ko == "" || *out == "" || *tag == "" || flag.NArg() == 0 {
		log.Fatal("usage: images -ko <ko> -out <dir> -tag <tag> <main package>...")
	}
	if err := run(*ko, *out, *tag, *repo, *dir, flag.Args()); err != nil {
		log.Fatalf("images: %v", err)
	}
}

func run(ko, out, tag, repo, dir string, pkgs []string) error {
	base, err := baseImage()
	if err != nil {
		return err
	}
	// The base's reference is written into every image (ko's base-name annotation and the SBOM):
	// a fixed port keeps it, and so the images' digests, the same from one build to the next. When
	// that port is taken, any other will do, at the cost of that sameness.
	lis, err := net.Listen("tcp", registryAddr)
	if err != nil {
		log.Printf("images: %v: the loopback registry takes another port (the images' digests will differ from a build on %s)", err, registryAddr)
		if lis, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return err
		}
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0))), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Close()
	// A registry on loopback is spoken to over plain HTTP, by this program and by ko alike.
	ref, err := name.ParseReference(lis.Addr().String() + "/cardroom/base:" + tag)
	if err != nil {
		return err
	}
	if err := remote.Write(ref, base); err != nil {
		return fmt.Errorf("pushing the base to the loopback registry: %w", err)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(out, "sbom"), 0o755); err != nil {
		return err
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	args := append([]string{"build", "--push=false", "--base-import-paths", "--platform=linux/" + goarch(),
		"--tags=" + tag, "--tarball=" + filepath.Join(abs, "images.tar"),
		"--sbom=spdx", "--sbom-dir=" + filepath.Join(abs, "sbom"), "--image-refs=" + filepath.Join(abs, "refs.txt")}, pkgs...)
	cmd := exec.Command(ko, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(),
		// This program runs outside the workspace (GOWORK=off); ko builds inside it.
		"GOWORK="+filepath.Join(dir, "go.work"),
		"KO_DEFAULTBASEIMAGE="+ref.String(),
		"KO_DOCKER_REPO="+repo,
		// Same sources, same image: no build time in the config or the layers.
		"SOURCE_DATE_EPOCH=0",
		"KO_CONFIG_PATH="+filepath.Join(dir, "deploy", "ko.yaml"),
	)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ko build: %w", err)
	}
	return nil
}

func goarch() string {
	if a := os.Getenv("GOARCH"); a != "" {
		return a
	}
	out, err := exec.Command("go", "env", "GOARCH").Output()
	if err != nil {
		return "amd64"
	}
	return strings.TrimSpace(string(out))
}

// baseImage is the image every cardroom binary is put on: one layer with /etc/passwd,
// /etc/group and /tmp, run as nonroot.
func baseImage() (v1.Image, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	dirs := []struct {
		name string
		mode int64
	}{{"etc/", 0o755}, {"tmp/", 0o1777}}
	for _, d := range dirs {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d.name, Mode: d.mode, ModTime: epoch}); err != nil {
			return nil, err
		}
	}
	files := []struct{ name, body string }{
		{"etc/passwd", fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", nonroot, nonroot)},
		{"etc/group", fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonroot)},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: 0o644, Size: int64(len(f.body)), ModTime: epoch}); err != nil {
			return nil, err
		}
		if _, err := io.WriteString(tw, f.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", goarch()
	cf.Config.User = fmt.Sprintf("%d:%d", nonroot, nonroot)
	cf.Config.WorkingDir = "/"
	// Inside a container the processes listen on every interface (the binaries default to
	// loopback) and log JSON. Beyond loopback the rules and stats services refuse to start without
	// CARDROOM_SERVICE_TOKEN (`cardroom serve` makes a random one: its internal ports stay closed),
	// and the metrics port answers profiles to loopback callers only.
	cf.Config.Env = []string{
		"CARDROOM_LISTEN=0.0.0.0:7070",
		"CARDROOM_METRICS_LISTEN=0.0.0.0:9464",
		"CARDROOM_LOG_FORMAT=json",
	}
	cf.Config.ExposedPorts = map[string]struct{}{"7070/tcp": {}, "9464/tcp": {}}
	return mutate.ConfigFile(img, cf)
}
