// Command record records the runs of the example jq suite: a scripted agent
// stands in for two models, its commands run for real (jq must be
// installed) through clitask's recording shell, and each run is evaluated.
// It writes trace.json with every run, and keeps each run's final working
// directory under runs/, which the trace's workdirs point to, in a new
// temporary folder (printed), so that running it leaves the example's own
// files as they are; -out examples/clibench refreshes them.
//
//	go run ./examples/clibench/record [-dir examples/clibench] [-out DIR]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/assaykit/assay/clitask"
)

// script is what each model "decided" to run for each task: the first
// model does it right, the second makes the mistakes models make.
var script = map[string]map[string][]string{
	"anthropic/claude-sonnet-4": {
		"version":       {"jq --version"},
		"active-names":  {"jq -r '.[] | select(.active) | .name' users.json > names.txt", "cat names.txt"},
		"count-shipped": {`jq '[.[] | select(.status == "shipped")] | length' orders.json`},
		"invalid-json":  {"jq empty broken.json"},
		"total-amount":  {"jq '[.[].amount] | add' orders.json"},
	},
	"openai/gpt-4.1": {
		"version":       {"jq --help | head -1", "jq --version"},
		"active-names":  {"jq '.[] | select(.active == true) | .name' users.json > names.txt"},
		"count-shipped": {`jq 'map(select(.status == "shipped")) | length' orders.json`},
		"invalid-json":  {"jq . broken.json"},
		"total-amount":  {`python3 -c "import json; print(sum(o['amount'] for o in json.load(open('orders.json'))))"`},
	},
}

func main() {
	dir := flag.String("dir", "examples/clibench", "the example's folder")
	out := flag.String("out", "", "the folder trace.json and runs/ go to (default: a new temporary folder)")
	flag.Parse()
	// As the assay command does: what the agent's commands leave running,
	// new sessions included, is found among this process's children and
	// ended when each run's shell closes. Elsewhere than on Linux only
	// process groups are killed.
	if err := clitask.BecomeSubreaper(); err != nil {
		log.Printf("warning: %v", err)
	}
	if *out == "" {
		tmp, err := os.MkdirTemp("", "clibench-record-")
		if err != nil {
			log.Fatal(err)
		}
		*out = tmp
	}
	if err := record(*dir, *out); err != nil {
		log.Fatal(err)
	}
}

func record(dir, out string) error {
	suite, err := clitask.LoadSuite(filepath.Join(dir, "cli-bench.yaml"))
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "clibench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	agent := clitask.AgentFunc(func(ctx context.Context, a *clitask.Attempt) error {
		for _, c := range script[a.Model][a.Task.ID] {
			if _, err := a.Shell.Run(ctx, c); err != nil {
				return err
			}
		}
		return nil
	})
	runner := &clitask.Runner{Agent: agent, TempDir: tmp, KeepWorkdirs: true, Concurrency: 1}
	report, err := runner.Run(context.Background(), suite)
	if err != nil {
		return err
	}
	runsDir := filepath.Join(out, "runs")
	if err := os.RemoveAll(runsDir); err != nil {
		return err
	}
	var runs []clitask.Run
	for i, r := range report.Runs {
		name := fmt.Sprintf("%02d-%s-%s", i+1, r.TaskID, strings.SplitN(r.Model, "/", 2)[0])
		if err := os.CopyFS(filepath.Join(runsDir, name), os.DirFS(r.Trace.Workdir)); err != nil {
			return err
		}
		tr := *r.Trace
		tr.Workdir = "runs/" + name
		runs = append(runs, clitask.Run{TaskID: r.TaskID, Model: r.Model, Trace: tr})
		fmt.Printf("%-5v %s\n", r.Passed, name)
	}
	data, err := json.MarshalIndent(map[string]any{"runs": runs}, "", "  ")
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s\n", filepath.Join(out, "trace.json"))
	return os.WriteFile(filepath.Join(out, "trace.json"), append(data, '\n'), fs.FileMode(0o644))
}
