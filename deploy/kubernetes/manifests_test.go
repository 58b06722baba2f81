// Package kubernetes tests the example manifests in this folder: each
// document decodes strictly into its Kubernetes API type (an unknown or
// misspelt field, or a value of the wrong type, fails), and the pieces fit
// together: probes, ports, volumes, the Service's selector, the corpus
// path ka2 serve is given, and the ConfigMap's files as a ka2 corpus.
// kubeconform would need its schemas from the network; the API types are
// the same definitions, compiled in.
package kubernetes

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	yamlv3 "gopkg.in/yaml.v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/ka2/ka2/corpus"
)

// manifests holds every object of the folder, by kind.
type manifests struct {
	deployments map[string]*appsv1.Deployment // by file
	services    []*corev1.Service
	configMaps  []*corev1.ConfigMap
	jobs        map[string]*batchv1.Job // by name
	claims      []*corev1.PersistentVolumeClaim
}

// load decodes every document of every *.yaml file under the folder.
func load(t *testing.T) manifests {
	t.Helper()
	m := manifests{deployments: map[string]*appsv1.Deployment{}, jobs: map[string]*batchv1.Job{}}
	files, err := filepath.Glob("*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("*/*.yaml")
	for _, file := range append(files, more...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yamlv3.NewDecoder(bytes.NewReader(data))
		for {
			var node yamlv3.Node
			if err := dec.Decode(&node); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			doc, err := yamlv3.Marshal(&node)
			if err != nil {
				t.Fatal(err)
			}
			var head struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal(doc, &head); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var obj any
			switch head.APIVersion + " " + head.Kind {
			case "apps/v1 Deployment":
				d := &appsv1.Deployment{}
				m.deployments[file], obj = d, d
			case "v1 Service":
				s := &corev1.Service{}
				m.services, obj = append(m.services, s), s
			case "v1 ConfigMap":
				c := &corev1.ConfigMap{}
				m.configMaps, obj = append(m.configMaps, c), c
			case "batch/v1 Job":
				obj = &batchv1.Job{} // kept by name once decoded
			case "v1 PersistentVolumeClaim":
				c := &corev1.PersistentVolumeClaim{}
				m.claims, obj = append(m.claims, c), c
			default:
				t.Fatalf("%s: unexpected %s %s", file, head.APIVersion, head.Kind)
			}
			if err := yaml.UnmarshalStrict(doc, obj); err != nil {
				t.Errorf("%s: %s: %v", file, head.Kind, err)
			}
			if j, ok := obj.(*batchv1.Job); ok {
				m.jobs[j.Name] = j
			}
		}
	}
	if len(m.deployments) != 2 || len(m.services) != 1 || len(m.configMaps) != 1 {
		t.Fatalf("want 2 Deployments, a Service and a ConfigMap; have %d, %d, %d", len(m.deployments), len(m.services), len(m.configMaps))
	}
	return m
}

func container(t *testing.T, pod corev1.PodSpec, name string) corev1.Container {
	t.Helper()
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no container %q", name)
	return corev1.Container{}
}

func flag(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func mountPath(c corev1.Container, volume string) string {
	for _, m := range c.VolumeMounts {
		if m.Name == volume {
			return m.MountPath
		}
	}
	return ""
}

func volume(t *testing.T, pod corev1.PodSpec, name string) corev1.Volume {
	t.Helper()
	for _, v := range pod.Volumes {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no volume %q", name)
	return corev1.Volume{}
}

// TestDeployments checks what every ka2 serve Deployment must have.
func TestDeployments(t *testing.T) {
	m := load(t)
	for file, d := range m.deployments {
		t.Run(file, func(t *testing.T) {
			pod := d.Spec.Template.Spec
			if !labelsMatch(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
				t.Errorf("selector %v does not select the pod labels %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
			}
			psc := pod.SecurityContext
			if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
				t.Errorf("pod security context must set runAsNonRoot and a non-zero runAsUser: %+v", psc)
			}
			ka2 := container(t, pod, "ka2")
			if len(ka2.Args) == 0 || ka2.Args[0] != "serve" {
				t.Fatalf("ka2 args %q, want serve first", ka2.Args)
			}
			addr, ok := flag(ka2.Args, "--addr")
			host, port, err := net.SplitHostPort(addr)
			if !ok || err != nil || (host != "" && host != "0.0.0.0" && host != "::") {
				t.Errorf("--addr %q: ka2 serve listens on 127.0.0.1 by default; a pod needs --addr=:PORT", addr)
			}
			if len(ka2.Ports) != 1 || ka2.Ports[0].Name != "http" || port != itoa(ka2.Ports[0].ContainerPort) {
				t.Errorf("container ports %+v, want one named http on --addr's port %s", ka2.Ports, port)
			}
			for probe, want := range map[*corev1.Probe]string{ka2.ReadinessProbe: "/readyz", ka2.LivenessProbe: "/healthz"} {
				if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != want || probe.HTTPGet.Port.String() != "http" {
					t.Errorf("probe %+v, want GET %s on port http", probe, want)
				}
			}
			for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
				sc := c.SecurityContext
				if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
					sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
					t.Errorf("container %s: want readOnlyRootFilesystem and no privilege escalation", c.Name)
				}
				if c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Cpu().IsZero() {
					t.Errorf("container %s: want cpu and memory requests and a memory limit", c.Name)
				}
				for _, vm := range c.VolumeMounts {
					volume(t, pod, vm.Name)
				}
				if mountPath(c, "tmp") != "/tmp" && mountPath(c, "git-tmp") != "/tmp" {
					t.Errorf("container %s: a read-only root needs a writable /tmp", c.Name)
				}
			}
			corpusDir, ok := flag(ka2.Args, "--corpus")
			if !ok {
				t.Fatal("no --corpus: ka2 serve would serve the embedded sample")
			}
			if mp := mountPath(ka2, "corpus"); mp == "" || !(corpusDir == mp || strings.HasPrefix(corpusDir, mp+"/")) {
				t.Errorf("--corpus %s is not on the corpus volume (mounted at %q)", corpusDir, mp)
			}
		})
	}
}

func labelsMatch(selector, labels map[string]string) bool {
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return len(selector) > 0
}

func itoa(n int32) string {
	b := []byte{}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestService checks that the Service selects the pods and targets their
// named port.
func TestService(t *testing.T) {
	m := load(t)
	s := m.services[0]
	for file, d := range m.deployments {
		if !labelsMatch(s.Spec.Selector, d.Spec.Template.Labels) {
			t.Errorf("Service selector %v does not select %s's pods", s.Spec.Selector, file)
		}
		ka2 := container(t, d.Spec.Template.Spec, "ka2")
		for _, p := range s.Spec.Ports {
			if !slices.ContainsFunc(ka2.Ports, func(cp corev1.ContainerPort) bool { return cp.Name == p.TargetPort.String() }) {
				t.Errorf("Service port %s targets %s, which %s's ka2 container does not name", p.Name, p.TargetPort.String(), file)
			}
		}
	}
}

// TestConfigMapCorpus lays the ConfigMap's files out as the volume's items
// do and loads them with ka2's own loader: the example corpus is one ka2
// serves.
func TestConfigMapCorpus(t *testing.T) {
	m := load(t)
	cm := m.configMaps[0]
	pod := m.deployments["deployment.yaml"].Spec.Template.Spec
	v := volume(t, pod, "corpus")
	if v.ConfigMap == nil || v.ConfigMap.Name != cm.Name {
		t.Fatalf("corpus volume %+v, want the ConfigMap %s", v, cm.Name)
	}
	fsys := fstest.MapFS{}
	for _, it := range v.ConfigMap.Items {
		data, ok := cm.Data[it.Key]
		if !ok {
			t.Errorf("item key %s is not in the ConfigMap", it.Key)
		}
		fsys[it.Path] = &fstest.MapFile{Data: []byte(data)}
	}
	if len(v.ConfigMap.Items) != len(cm.Data) {
		t.Errorf("%d items for %d keys: a key without an item is not mounted", len(v.ConfigMap.Items), len(cm.Data))
	}
	c, err := corpus.Load(fsys)
	if err != nil {
		t.Fatalf("the ConfigMap's corpus does not load: %v", err)
	}
	if n := len(c.Sources); n != len(cm.Data) {
		t.Errorf("%d sources loaded from %d files", n, len(cm.Data))
	}
}

// TestGitSync checks the sidecar layout: the first clone runs before ka2
// starts, both git-sync containers write the volume ka2 reads, and
// --corpus is git-sync's link on it.
func TestGitSync(t *testing.T) {
	m := load(t)
	pod := m.deployments[filepath.Join("git-sync", "deployment.yaml")].Spec.Template.Spec
	if v := volume(t, pod, "corpus"); v.EmptyDir == nil {
		t.Errorf("corpus volume %+v, want an emptyDir shared by git-sync and ka2", v)
	}
	ka2 := container(t, pod, "ka2")
	corpusDir, _ := flag(ka2.Args, "--corpus")
	env := func(c corev1.Container, name string) string {
		for _, e := range c.Env {
			if e.Name == name {
				return e.Value
			}
		}
		return ""
	}
	for _, name := range []string{"git-sync-init", "git-sync"} {
		c := container(t, pod, name)
		root, link := env(c, "GITSYNC_ROOT"), env(c, "GITSYNC_LINK")
		if root == "" || root != mountPath(c, "corpus") {
			t.Errorf("%s: GITSYNC_ROOT %q is not where it mounts the corpus volume (%q)", name, root, mountPath(c, "corpus"))
		}
		if want := mountPath(ka2, "corpus") + "/" + link; link == "" || corpusDir != want {
			t.Errorf("%s: ka2 --corpus %s, want git-sync's link %s", name, corpusDir, want)
		}
		if env(c, "GITSYNC_REPO") == "" {
			t.Errorf("%s: no GITSYNC_REPO", name)
		}
	}
	if !slices.ContainsFunc(pod.InitContainers, func(c corev1.Container) bool {
		return c.Name == "git-sync-init" && env(c, "GITSYNC_ONE_TIME") == "true"
	}) {
		t.Error("no one-time git-sync init container: ka2 could start before the first clone")
	}
	if fs := pod.SecurityContext.FSGroup; fs == nil || *fs != *container(t, pod, "git-sync").SecurityContext.RunAsGroup {
		t.Error("fsGroup must be git-sync's group, so that ka2 can read what it writes")
	}
}

// TestNightlyJobs checks the nightly run's Jobs: an Indexed Job whose pods
// run shard JOB_COMPLETION_INDEX+1 of as many shards as it has
// completions, each writing its report to the shared volume the merge Job
// reads, on the claim the folder declares.
func TestNightlyJobs(t *testing.T) {
	m := load(t)
	shards, merge := m.jobs["ka2-nightly-shards"], m.jobs["ka2-nightly-merge"]
	if shards == nil || merge == nil || len(m.jobs) != 2 {
		t.Fatalf("want the Jobs ka2-nightly-shards and ka2-nightly-merge; have %v", m.jobs)
	}
	if shards.Spec.CompletionMode == nil || *shards.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Error("the shards Job is not Indexed: its pods would have no JOB_COMPLETION_INDEX")
	}
	if shards.Spec.Completions == nil || shards.Spec.Parallelism == nil || *shards.Spec.Completions != *shards.Spec.Parallelism {
		t.Error("completions and parallelism differ: some shards would wait")
	}
	regress := container(t, shards.Spec.Template.Spec, "regress")
	n := ""
	for _, e := range regress.Env {
		if e.Name == "SHARDS" {
			n = e.Value
		}
	}
	if n != fmt.Sprint(*shards.Spec.Completions) {
		t.Errorf("SHARDS is %q but the Job has %d completions", n, *shards.Spec.Completions)
	}
	script := strings.Join(regress.Args, "\n")
	for _, want := range []string{"K=$((JOB_COMPLETION_INDEX + 1))", `--shard "$K/$SHARDS"`, `--report "json=/reports/shard-$K.json"`, "|| [ $? -eq 1 ]"} {
		if !strings.Contains(script, want) {
			t.Errorf("the shard script lacks %s:\n%s", want, script)
		}
	}
	mergeC := container(t, merge.Spec.Template.Spec, "merge")
	mergeScript := strings.Join(mergeC.Args, "\n")
	for _, want := range []string{"ka2 report merge", "/reports/shard-*.json", "ka2 report history --html /reports/history.html /reports/nights"} {
		if !strings.Contains(mergeScript, want) {
			t.Errorf("the merge script lacks %s:\n%s", want, mergeScript)
		}
	}
	for _, j := range []*batchv1.Job{shards, merge} {
		pod := j.Spec.Template.Spec
		c := pod.Containers[0]
		if mountPath(c, "reports") != "/reports" {
			t.Errorf("%s: the reports volume is not at /reports", j.Name)
		}
		v := volume(t, pod, "reports")
		if v.PersistentVolumeClaim == nil || len(m.claims) != 1 || v.PersistentVolumeClaim.ClaimName != m.claims[0].Name {
			t.Errorf("%s: the reports volume is not the folder's claim", j.Name)
		}
		if pod.RestartPolicy != corev1.RestartPolicyNever {
			t.Errorf("%s: restartPolicy %s, want Never (a rerun shard would write its report twice)", j.Name, pod.RestartPolicy)
		}
	}
	if modes := m.claims[0].Spec.AccessModes; !slices.Contains(modes, corev1.ReadWriteMany) {
		t.Errorf("the reports claim is %v: pods on several nodes write it at once, so it must be ReadWriteMany", modes)
	}
}
